import torch
from torch import Tensor
from typing import List, Tuple, Optional


def g(a: int) -> int:
    return a + 1


def f(x: Tensor) -> int:
    return g(x)
