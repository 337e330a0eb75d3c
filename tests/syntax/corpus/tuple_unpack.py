import torch
from torch import Tensor
from typing import Tuple


def swap(a: int, b: int) -> Tuple[int, int]:
    a, b = b, a
    return a, b


def top(x: Tensor) -> Tuple[Tensor, Tensor]:
    v, i = torch.max(x, 1)
    (p, q), r = (v, i), x
    first, *rest = [1, 2, 3]
    return v, i
