import torch
from torch import Tensor
from typing import Tuple


def basic_creation(n: int) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
    return (torch.zeros(n), torch.ones(2, n), torch.full([n, 2], 3.5), torch.eye(n),
            torch.zeros([n], dtype=torch.int64))


def with_dtypes(n: int) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
    return (torch.ones(n, dtype=torch.float64), torch.zeros(n, dtype=torch.int32),
            torch.full([n], 7, dtype=torch.int64), torch.ones(n, dtype=torch.bool),
            torch.eye(n, dtype=torch.int32))


def ranges(n: int) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
    return (torch.arange(n), torch.arange(2, n), torch.arange(0, n, 3), torch.arange(0.0, 1.0, 0.25),
            torch.linspace(-1.0, 1.0, n))


def likes(x: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    return (torch.zeros_like(x), torch.ones_like(x), torch.full_like(x, 2.5),
            torch.zeros_like(x, dtype=torch.int64))


def empty_then_fill(n: int) -> Tensor:
    out = torch.empty(n)
    for i in range(n):
        out[i] = i * i
    e = torch.empty_like(out)
    e[:] = 1.0
    return out + e


def literals() -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
    return (torch.tensor([1, 2, 3]), torch.tensor([1.5, -2.0]), torch.tensor([[1.0, 2.0], [3.0, 4.0]]),
            torch.tensor([True, False]), torch.tensor(3.0, dtype=torch.float64))


def full_int_fill(n: int) -> Tensor:
    # integer fill value: PyTorch infers int64
    return torch.full([n], 4)


def arange_float_dtype(n: int) -> Tensor:
    return torch.arange(n, dtype=torch.float32) * 0.5
