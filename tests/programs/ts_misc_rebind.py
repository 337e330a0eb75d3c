import torch
from torch import Tensor


# re-binding a variable to a value of another type in straight-line code


def rebind(a: Tensor, b: Tensor) -> Tensor:
    c = 3
    d = c * 2
    c = a + b
    return c * d


def rebind_scale(x: Tensor, n: int) -> Tensor:
    scale = n
    y = x * scale
    scale = y.sum()
    return y / scale


def rebind_param(x: Tensor, k: int) -> Tensor:
    k2 = k + 1
    x = x.sum(0) if k2 > 2 else x
    k = x.shape[0]
    return x * k
