import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(x: Tensor) -> List[int]:
    xs: List[int] = []
    xs.append(x)
    return xs
