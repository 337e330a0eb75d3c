import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(x: Optional[int]) -> int:
    return x + 1
