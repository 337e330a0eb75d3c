import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(x: Tensor, flag: bool) -> Tensor:
    if flag:
        y = x * 2
    return y
