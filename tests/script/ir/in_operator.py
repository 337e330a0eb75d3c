import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(x: int, xs: List[int]) -> bool:
    return x in xs or x not in (1, 2, 3)
