import torch
from torch import Tensor
from typing import Tuple


def stats(x: Tensor) -> Tuple[Tensor, Tensor, int]:
    return x.mean(), x.std(), x.numel()


def use_stats(x: Tensor) -> Tensor:
    m, s, n = stats(x)
    return (x - m) / s * n
