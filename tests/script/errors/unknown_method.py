import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(x: Tensor) -> Tensor:
    return x.frobnicate()
