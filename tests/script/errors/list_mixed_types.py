import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(x: Tensor) -> int:
    xs = [1, x]
    return 0
