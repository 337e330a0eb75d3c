import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(t: Tuple[int, int]) -> int:
    return t[2]
