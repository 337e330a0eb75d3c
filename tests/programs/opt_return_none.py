import torch
from torch import Tensor
from typing import Optional


def positive_part(x: Tensor) -> Optional[Tensor]:
    if bool((x > 0).any()):
        return x[x > 0]
    return None


def count_or_none(x: Tensor) -> int:
    p = positive_part(x)
    if p is None:
        return -1
    return p.numel()
