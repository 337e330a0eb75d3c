import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(xs: List[int]) -> int:
    y = xs + 1
    return 0
