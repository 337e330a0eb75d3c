import torch
from torch import Tensor
from typing import List, Tuple, Optional


def halve_until_small(x: Tensor) -> Tensor:
    while x.abs().max() > 1.0:
        x = x / 2
    return x
