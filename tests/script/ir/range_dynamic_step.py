import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(a: int, b: int, step: int) -> int:
    s = 0
    for i in range(a, b, step):
        s += i
    return s
