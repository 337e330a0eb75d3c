import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(a: int, b: int) -> Tuple[int, int, float, int, float]:
    return a // b, a % b, a / b, 2 ** 10, 2 ** -1
