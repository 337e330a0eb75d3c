import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(t: Tuple[int, int]) -> Tuple[int, int]:
    t[0] = 1
    return t
