import torch
from torch import Tensor
from typing import List, Tuple, Optional


def scale(x: Tensor, alpha: float = 0.5, shift: int = 0) -> Tensor:
    return x * alpha + shift


def f(x: Tensor) -> Tensor:
    return scale(x, shift=2) + scale(x, 2)
