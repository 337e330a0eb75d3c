import torch
from torch import Tensor
from typing import List


def evens(n):
    # type: (int) -> List[int]
    out = torch.jit.annotate(List[int], [])
    for i in range(n):
        if i % 2 == 0:
            out.append(i)
    return out


def halvings(n: int) -> List[int]:
    out = []  # type: List[int]
    i = n
    while i > 0:
        out.append(i)
        i = i // 2
    return out


def scaled(k, x):
    # type: (int, Tensor) -> Tensor
    return x * k
