import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(x: Tensor, xs: List[int]) -> Tensor:
    return x < xs
