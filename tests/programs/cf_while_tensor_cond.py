import torch
from torch import Tensor
from typing import Tuple


def grow_until(x: Tensor, limit: float) -> Tuple[Tensor, int]:
    # trip count depends on the data: double until the sum passes the limit
    steps = 0
    while x.sum() < limit:
        x = x * 2.0
        steps += 1
    return x, steps
