import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(n: int) -> int:
    xs = [[1], [1.5, n]]
    return n
