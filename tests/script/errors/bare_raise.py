import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(x: int) -> int:
    if x < 0:
        raise
    return x
