import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(n: int) -> int:
    i = 0
    while i < n:
        i += 1
    else:
        i = -1
    return i
