import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(a: int, b: int, c: int) -> bool:
    return 0 <= a < b <= c
