import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(x: Tensor, n: integer) -> Tensor:
    return x
