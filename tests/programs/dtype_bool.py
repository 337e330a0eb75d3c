import torch
from torch import Tensor
from typing import Tuple


def bool_logic(a: Tensor, b: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    return a & b, a | ~b, a.long() + b.long(), (a == b).all()


def count_true(m: Tensor) -> int:
    return int(m.sum())


def mask_from_threshold(x: Tensor, t: float) -> Tensor:
    m = torch.zeros(x.size(), dtype=torch.bool)
    m[x > t] = True
    return m
