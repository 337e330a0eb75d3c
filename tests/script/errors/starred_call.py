import torch
from torch import Tensor
from typing import List, Tuple, Optional


def g(a: int, b: int) -> int:
    return a + b


def f(xs: Tuple[int, int]) -> int:
    return g(*xs)
