import torch
from torch import Tensor


def staircase(n: int) -> Tensor:
    out = torch.zeros(n, n, dtype=torch.int64)
    i = 0
    while i < n:
        for j in range(n):
            if j > i:
                break
            out[i, j] = i - j + 1
        i += 1
    return out
