import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(x: Tensor) -> Tensor:
    y = 1
    y = x * 2
    return y
