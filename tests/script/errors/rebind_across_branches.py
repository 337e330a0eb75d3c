import torch
from torch import Tensor


def f(x: Tensor, flag: bool) -> Tensor:
    y = 1
    if flag:
        y = x * 2
    return x + y
