import torch
from torch import Tensor


def apply_scales(x: Tensor) -> Tensor:
    # iteration over a tuple literal is unrolled
    for s in (0.5, 2.0, 3.0):
        x = x * s + 1.0
    return x


def mixed_tuple(a: Tensor, b: Tensor) -> Tensor:
    acc = torch.zeros_like(a)
    for t in (a, b, a * b):
        acc = acc + t
    return acc
