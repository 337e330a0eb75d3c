import torch
from torch import Tensor
from typing import Tuple


def basic(x: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
    return x[1], x[-1], x[1:3], x[::2], x[-3:-1]


def multi(x: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
    # x is 3-d
    return x[:, 1:3, None], x[..., 0], x[0, :, ::2], x[None, 1], x[-1, -1, -1]


def clamped(x: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    # slice bounds past the end clamp; an inverted slice is empty
    return x[1:100], x[5:2], x[-100:2]


def strided_sum(x: Tensor, step: int) -> Tensor:
    return x[::step].sum()


def index_by_int(x: Tensor, i: int, j: int) -> Tensor:
    return x[i, j]


def negative_step(x: Tensor) -> Tensor:
    # PyTorch has no negative slice steps
    return x[::-1]
