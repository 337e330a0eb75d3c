import torch
from torch import Tensor
from typing import List, Optional


def default_fill(x: Tensor, bias: Optional[Tensor] = None) -> Tensor:
    if bias is None:
        bias = torch.zeros_like(x)
    return x + bias


def opt_int(n: Optional[int]) -> int:
    if n is None:
        n = 3
    return n * 2


def opt_early(x: Optional[Tensor]) -> Tensor:
    if x is None:
        raise ValueError("x is required")
    return x * 2
