import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(x: Tensor, bias: Optional[Tensor] = None) -> Tensor:
    if bias is not None:
        x = x + bias
    return x


def g(n: Optional[int]) -> int:
    if n is None:
        return 0
    return n + 1


def h(n: Optional[int]) -> int:
    assert n is not None, "n is required"
    return n * 2
