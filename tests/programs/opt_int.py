import torch
from torch import Tensor
from typing import Optional


def clamp_len(n: int, limit: Optional[int]) -> int:
    if limit is None:
        return n
    elif n > limit:
        return limit
    return n


def narrow_or_all(x: Tensor, k: Optional[int] = None) -> Tensor:
    if k is not None:
        return x[:k]
    return x
