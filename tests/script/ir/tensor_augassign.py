import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(x: Tensor, y: Tensor) -> Tensor:
    z = x
    z += y
    z *= 2
    z @= y
    return x
