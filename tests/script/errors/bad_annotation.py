import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(x: Tensor, n: Dict[str, int]) -> Tensor:
    return x
