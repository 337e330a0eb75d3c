import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(xs: List[int]) -> int:
    return sum(x * x for x in xs)
