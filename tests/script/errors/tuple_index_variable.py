import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(t: Tuple[int, int], i: int) -> int:
    return t[i]
