import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(x: int) -> bool:
    return x is 3
