import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(x: List[int]) -> int:
    x.append(1, 2)
    return 0
