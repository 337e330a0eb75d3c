import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(x: int) -> int:
    if x < 0:
        raise ValueError("negative") from None
    return x
