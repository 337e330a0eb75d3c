import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(n: int) -> int:
    s = 0
    for i in n:
        s += i
    return s
