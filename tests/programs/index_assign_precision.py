import torch
from torch import Tensor
from typing import Tuple


def store_scalars(x: Tensor, i: Tensor, v: float, n: int) -> Tuple[Tensor, Tensor]:
    # a Python float stored into a float64 tensor keeps double precision, and a Python int
    # stored into an int64 tensor keeps all 64 bits (no detour through float32/float64)
    x[0] = v
    x[1, 1] = v / 3.0
    i[0] = n
    i[1] = n + 1
    return x, i
