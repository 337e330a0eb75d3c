import torch
from torch import Tensor
from typing import Optional


def f(x: Tensor, mask: Optional[Tensor]) -> Tensor:
    return x.masked_fill(mask, 0.0)
