import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(n: int) -> List[int]:
    xs: List[int] = []
    for i in range(n):
        xs.append(i * i)
    ys = xs
    ys[0] = 7
    xs[-1] += 1
    return xs
