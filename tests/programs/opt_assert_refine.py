import torch
from torch import Tensor
from typing import Optional


def require(x: Tensor, mask: Optional[Tensor]) -> Tensor:
    assert mask is not None, "mask is required"
    return x.masked_fill(mask, 0.0)


def first_set(a: Optional[int], b: Optional[int]) -> int:
    if a is not None:
        return a
    if b is not None:
        return b * 10
    return 0
