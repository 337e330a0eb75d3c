import math
import torch
from torch import Tensor


def precise(x: Tensor) -> Tensor:
    # float64 keeps precision float32 would lose
    big = x + 1e10
    return big - 1e10


def series(n: int) -> Tensor:
    acc = torch.zeros(1, dtype=torch.float64)
    for k in range(1, n + 1):
        acc += 1.0 / (k * k)
    return torch.sqrt(acc * 6.0) - math.pi
