import torch
from torch import Tensor
from typing import List, Tuple, Optional


def g(a: int, b: int) -> int:
    return a + b


def f(x: int) -> int:
    return g(x, 1, 2)
