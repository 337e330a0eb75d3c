import torch
from torch import Tensor
from typing import List


def weighted(xs: List[Tensor], ws: List[float]) -> Tensor:
    acc = torch.zeros_like(xs[0])
    for i in range(len(xs)):
        acc = acc + xs[i] * ws[i]
    return acc


def total_len(lists: List[int]) -> int:
    t = 0
    for v in lists:
        if v < 0:
            continue
        t += v
    return t
