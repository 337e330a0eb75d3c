import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(x: int) -> int:
    y = z + 1
    z = x
    return y
