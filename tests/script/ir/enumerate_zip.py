import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(a: List[float], b: List[float]) -> float:
    s = 0.0
    for i, (x, y) in enumerate(zip(a, b)):
        s += i * x * y
    return s
