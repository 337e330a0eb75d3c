import torch
from torch import Tensor


def maybe_loop(x: Tensor, n: int) -> Tensor:
    y = x
    for i in range(n):
        y = y + i
    k = 0
    while k < n - 5:
        y = y * 2
        k += 1
    return y
