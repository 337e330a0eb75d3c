import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(x: Optional[Tensor]) -> Tensor:
    if x is None:
        return x * 2
    return x
