import torch
from torch import Tensor
from typing import List


def list_iadd(x: Tensor) -> Tensor:
    y = x.clone()
    xs: List[Tensor] = [y]
    xs[0] += 1.0
    return y
