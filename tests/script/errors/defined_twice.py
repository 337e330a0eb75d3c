import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(x: int) -> int:
    return x


def f(x: int) -> int:
    return x + 1
