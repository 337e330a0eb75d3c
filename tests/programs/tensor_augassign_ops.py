import torch
from torch import Tensor
from typing import List


def all_aug(x: Tensor, m: Tensor) -> List[Tensor]:
    a = x.clone()
    a += 1.5
    b = x.clone()
    b -= a
    c = x.clone()
    c *= c
    d = x.clone()
    d /= 4
    e = x.clone()
    e **= 2
    f = x.clone()
    f @= m
    g = x.clone()
    g //= 0.5
    h = x.clone()
    h %= 0.75
    return [a, b, c, d, e, f, g, h]


def int_bits_aug(x: Tensor) -> List[Tensor]:
    a = x.clone()
    a &= 6
    b = x.clone()
    b |= 1
    c = x.clone()
    c ^= 3
    return [a, b, c]


def tensor_aug_on_scalar_tensor(x: Tensor, n: int) -> Tensor:
    acc = torch.zeros(1)
    for i in range(n):
        acc += x[i]
    return acc
