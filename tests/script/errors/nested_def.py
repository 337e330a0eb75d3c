import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(x: Tensor) -> Tensor:
    def helper(t: Tensor) -> Tensor:
        return t * 2
    return helper(x)
