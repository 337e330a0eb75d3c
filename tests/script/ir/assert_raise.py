import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(x: int) -> int:
    assert x >= 0, f"x must be non-negative, got {x}"
    if x > 100:
        raise ValueError("too large")
    return x
