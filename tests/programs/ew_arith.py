import torch
from torch import Tensor
from typing import Tuple


def arith(x: Tensor, y: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor]:
    return (torch.add(x, y), torch.sub(x, y), torch.mul(x, y), torch.div(x, y), torch.true_divide(x, y),
            torch.pow(x.abs(), y), torch.neg(x))


def methods(x: Tensor, y: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
    return x.add(y), x.sub(2.0), x.mul(y), x.div(y), x.pow(2)


def operators(x: Tensor, y: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor, Tensor]:
    return x + y, x - 1, 2 * x, x / y, -x, x ** 2


def floor_mod(x: Tensor, y: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
    # Python-style floor division and remainder, also on tensors
    return x // y, x % y, torch.floor_divide(x, y), torch.remainder(x, y), x % 3
