import torch
from torch import Tensor
from typing import List, Tuple, Optional


def g(x: int) -> int:
    return x


def f(x: int) -> int:
    h = g
    return h(x)
