import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(x: int) -> int:
    s = f"value {x}"
    return x
