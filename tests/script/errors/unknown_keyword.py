import torch
from torch import Tensor
from typing import List, Tuple, Optional


def g(a: int, scale: float = 1.0) -> float:
    return a * scale


def f(x: int) -> float:
    return g(x, scael=2.0)
