import torch
from torch import Tensor


def bucket(v: float) -> int:
    if v < -1.0:
        return 0
    elif v < 0.0:
        return 1
    elif v == 0.0:
        return 2
    elif v <= 1.0:
        return 3
    else:
        return 4


def tensor_bucket(x: Tensor) -> Tensor:
    m = x.mean()
    if m > 1.0:
        y = x - 1.0
    elif m < -1.0:
        y = x + 1.0
    else:
        y = x * 0.0
    return y
