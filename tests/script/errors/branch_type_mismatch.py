import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(x: Tensor, flag: bool) -> Tensor:
    if flag:
        r = x * 2
    else:
        r = 3
    return x + r
