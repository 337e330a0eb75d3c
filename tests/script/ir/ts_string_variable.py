import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(x: Tensor) -> Tensor:
    mode = "fast"
    return x
