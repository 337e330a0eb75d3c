import torch
from torch import Tensor
from typing import List


def rev(xs: List[int], n: int) -> List[int]:
    out: List[int] = []
    for i in reversed(range(n)):
        out.append(i)
    for v in reversed(xs):
        out.append(v * 10)
    return out


def rev_tensor(x: Tensor) -> Tensor:
    acc = torch.zeros_like(x[0])
    for row in reversed(x):
        acc = acc * 2 + row
    return acc
