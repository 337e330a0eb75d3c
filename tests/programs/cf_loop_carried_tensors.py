import torch
from torch import Tensor
from typing import Tuple


def two_state(x: Tensor, n: int) -> Tuple[Tensor, Tensor, int]:
    a = x
    b = torch.zeros_like(x)
    count = 0
    for i in range(n):
        a, b = b + 1.0, a * 0.5
        if bool((a > 3.0).any()):
            count += 1
    return a, b, count
