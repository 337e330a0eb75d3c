import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(x: int) -> int:
    if (y := x + 1) > 3:
        return y
    return 0
