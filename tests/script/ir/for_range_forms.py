import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(n: int) -> int:
    s = 0
    for i in range(n):
        s += i
    for i in range(2, n):
        s += i
    for i in range(n, 0, -2):
        s -= i
    return s
