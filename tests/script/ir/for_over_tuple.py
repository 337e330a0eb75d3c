import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(x: Tensor) -> Tensor:
    for s in (0.5, 2, 3.0):
        x = x * s
    return x
