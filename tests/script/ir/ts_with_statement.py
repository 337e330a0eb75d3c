import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(x: Tensor) -> Tensor:
    with torch.no_grad():
        y = x * 2
    return y
