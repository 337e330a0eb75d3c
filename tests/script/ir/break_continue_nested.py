import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(n: int) -> int:
    total = 0
    for i in range(n):
        if i % 2 == 0:
            continue
        for j in range(i):
            if j > 3:
                break
            total += j
    return total
