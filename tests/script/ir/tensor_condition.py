import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(x: Tensor) -> Tensor:
    n = 0
    while x.sum() > 0 and n < 10:
        x = x - 1
        n += 1
    if x.max():
        x = x * 0
    return x
