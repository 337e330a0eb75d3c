import torch
from torch import Tensor


def fast_pow(b: int, e: int) -> int:
    if e == 0:
        return 1
    h = fast_pow(b, e // 2)
    if e % 2 == 0:
        return h * h
    return h * h * b


def matrix_power(m: Tensor, e: int) -> Tensor:
    if e == 0:
        return torch.eye(m.size(0), dtype=m.dtype)
    if e % 2 == 1:
        return m @ matrix_power(m, e - 1)
    h = matrix_power(m, e // 2)
    return h @ h
