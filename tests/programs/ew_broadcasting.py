import torch
from torch import Tensor
from typing import List


def bcast(a: Tensor, b: Tensor) -> List[Tensor]:
    return [a + b, a * b, torch.maximum(a, b), torch.where(a > b, a, b)]


def outer_sum(u: Tensor, v: Tensor) -> Tensor:
    return u[:, None] + v[None, :]


def scalar_tensor_ops(x: Tensor, s: float, k: int) -> List[Tensor]:
    return [x + s, s - x, x * k, k / (x.abs() + 1.0), x ** s, s ** x]
