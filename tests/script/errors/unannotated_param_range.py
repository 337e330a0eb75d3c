import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(x, n):
    for i in range(n):
        x = x + 1
    return x
