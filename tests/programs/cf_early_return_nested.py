import torch
from torch import Tensor


def first_negative_index(x: Tensor) -> int:
    # early return from inside nested loops over a 2-d tensor
    rows = x.size(0)
    cols = x.size(1)
    for i in range(rows):
        for j in range(cols):
            if x[i, j] < 0:
                return i * cols + j
    return -1


def classify(n: int) -> int:
    if n < 0:
        return -1
    for d in range(2, n):
        if d * d > n:
            return 1
        if n % d == 0:
            return 0
    return 2
