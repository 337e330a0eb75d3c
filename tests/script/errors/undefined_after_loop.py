import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(n: int) -> int:
    for i in range(n):
        last = i
    return last
