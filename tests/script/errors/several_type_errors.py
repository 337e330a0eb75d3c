import torch
from torch import Tensor


def f(x: Tensor, n: int) -> Tensor:
    y = x + undefined_a
    z = y * 2
    for i in range(2.5):
        x = x + i
    w: int = n * 1.5
    return torch.frobnicate(x)
