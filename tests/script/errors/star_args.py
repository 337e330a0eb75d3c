import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(*xs: Tensor) -> Tensor:
    return xs[0]
