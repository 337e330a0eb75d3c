import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(x: int) -> int:
    y = 1
    y: float = 2.0
    return x
