import torch
from torch import Tensor
from typing import Tuple


def through_view(x: Tensor) -> Tensor:
    v = x[1]
    v += 10.0
    col = x[:, 0]
    col *= -1.0
    return x


def alias_vs_rebind(x: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    a = x.clone()
    alias = a
    a += 1.0          # in place: alias sees it
    b = x.clone()
    keep = b
    b = b + 1.0       # rebinds: keep does not change
    return alias, keep, b


def reshape_view_inplace(x: Tensor) -> Tensor:
    y = x.clone()
    flat = y.view(-1)
    flat -= 1.0
    t = y.t()
    t *= 2.0
    return y


def mutate_argument(x: Tensor) -> Tensor:
    x += 1
    return x * 0 + x.sum()
