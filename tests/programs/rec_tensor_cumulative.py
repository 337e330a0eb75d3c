import torch
from torch import Tensor


def smooth(x: Tensor, depth: int) -> Tensor:
    # recursive tensor op: each level averages neighbours and recurses
    if depth == 0:
        return x
    y = x.clone()
    y[1:] = 0.5 * (x[1:] + x[:-1])
    return smooth(y, depth - 1)
