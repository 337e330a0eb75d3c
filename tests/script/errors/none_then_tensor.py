import torch
from torch import Tensor


def f(x: Tensor, n: int) -> Tensor:
    best = None
    for i in range(n):
        best = x * i
    return x
