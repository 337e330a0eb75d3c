import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(x: Tensor, c: bool) -> Tensor:
    y = x * 2 if c else x - 1
    return y


def g(n: int) -> float:
    return n if n > 0 else 0.5
