import torch
from torch import Tensor


def accumulate(x: Tensor, n: int) -> Tensor:
    acc = torch.zeros_like(x)
    for i in range(n):
        acc += x * i
    for i in range(1, n, 2):
        if i == 3:
            continue
        acc -= x
    return acc
