import torch
from torch import Tensor
from typing import List, Tuple


def lslice(xs: List[int], a: int, b: int) -> List[int]:
    return xs[a:b] + [0]


def lslice2(xs: List[int]) -> Tuple[List[int], List[int], List[int]]:
    return xs[1:], xs[:-2], xs[-3:]


def shape_tail(x: Tensor) -> int:
    h, w = x.shape[-2:]
    return h * 100 + w


def same_shape(x: Tensor, y: Tensor) -> bool:
    return x.size() == y.size()


def tup_eq(a: int, b: int) -> Tuple[bool, bool]:
    return (a, b) == (1, 2), (a, b) != (a, b)


def fmt(n: int) -> int:
    if n < 0:
        raise ValueError("expected a non-negative number, got {} ({:.2f})".format(n, n / 2))
    return n


def extend(xs: List[int], ys: List[int]) -> List[int]:
    out: List[int] = []
    out.extend(xs)
    out.extend(ys[1:])
    return out
