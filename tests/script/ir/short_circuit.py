import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(a: int, b: int) -> bool:
    return a > 0 and b // a > 2 or b == 0


def g(a: int, b: int) -> int:
    return a or b
