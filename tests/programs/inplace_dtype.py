import torch
from torch import Tensor
from typing import Tuple


def keep_dtype(x: Tensor, y: Tensor) -> Tensor:
    # x is float32, y float64: x += y stays float32
    x += y
    x *= 2
    return x


def int_inplace(x: Tensor) -> Tensor:
    x += 3
    x *= -2
    x //= 4
    x %= 5
    return x


def int_true_div_inplace(x: Tensor) -> Tensor:
    # true division of an int64 tensor in place cannot keep the dtype: PyTorch raises
    x /= 2
    return x


def bool_inplace(a: Tensor, b: Tensor) -> Tuple[Tensor, Tensor]:
    c = a.clone()
    a &= b
    c |= b
    return a, c
