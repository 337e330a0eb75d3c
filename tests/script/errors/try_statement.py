import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(x: Tensor) -> Tensor:
    try:
        y = x.sum()
    except RuntimeError:
        y = x
    return y
