import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(x: Tensor) -> Tuple[Tensor, Tensor]:
    v, i = torch.max(x, 1)
    a, b = v, i
    a, b = b, a
    return a, b
