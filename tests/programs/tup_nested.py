import torch
from torch import Tensor
from typing import Tuple


def pairs(x: Tensor) -> Tuple[Tuple[Tensor, Tensor], int]:
    return (x + 1, x - 1), x.dim()


def unpack_nested(x: Tensor) -> Tensor:
    (a, b), d = pairs(x)
    return a * b + d
