import torch
from torch import Tensor


def scale_shift(x: Tensor, alpha: float = 2.0, beta: float = 0.0, square: bool = False) -> Tensor:
    y = x * alpha + beta
    if square:
        y = y * y
    return y


def use_keywords(x: Tensor) -> Tensor:
    a = scale_shift(x)
    b = scale_shift(x, beta=1.0)
    c = scale_shift(x, square=True, alpha=0.5)
    d = scale_shift(x=x, alpha=-1.0, beta=3.0)
    return a + b + c + d


def repeat_add(n: int, start: int = 10, step: int = 1) -> int:
    for _ in range(n):
        start += step
    return start
