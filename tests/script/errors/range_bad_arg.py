import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(x: float) -> int:
    s = 0
    for i in range(x):
        s += i
    return s
