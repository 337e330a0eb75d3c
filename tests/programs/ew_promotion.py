import torch
from torch import Tensor
from typing import List


def promote(i64: Tensor, i32: Tensor, f32: Tensor, f64: Tensor, b: Tensor) -> List[Tensor]:
    # PyTorch type promotion across dtype categories and with Python scalars
    return [i64 + i32, i32 + i32, i32 + f32, f32 + f64, i64 * 2, i64 * 2.5, i32 / i32, f32 + 1,
            b + b, b * 3, b + 0.5, i64 + b, f32 + f64.sum(), i32 ** 2]


def int_div_tensor(a: Tensor, b: Tensor) -> List[Tensor]:
    return [a / b, a // b, a % b]


def int_zero_div(a: Tensor) -> Tensor:
    # integer tensor floor division by zero raises in PyTorch
    return a // 0
