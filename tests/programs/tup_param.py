import torch
from torch import Tensor
from typing import Tuple


def make_grid(shape: Tuple[int, int], fill: float) -> Tensor:
    return torch.full([shape[0], shape[1]], fill)


def add_offset(p: Tuple[float, float], q: Tuple[float, float]) -> Tuple[float, float]:
    return p[0] + q[0], p[1] + q[1]


def tensor_pair(t: Tuple[Tensor, Tensor]) -> Tensor:
    a, b = t
    return a @ b
