import torch
from torch import Tensor
from typing import Tuple


def f(a: int, b: int, c: int) -> Tuple[int, int]:
    t = (a, b, c)
    return t[1:]


def best(xs: Tensor) -> float:
    best = -float("inf")
    for v in xs:
        if float(v) > best:
            best = float(v)
    return best


def mode(x: Tensor) -> Tensor:
    if torch.jit.is_scripting():
        return x
    return x * 2
