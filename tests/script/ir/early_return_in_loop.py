import torch
from torch import Tensor
from typing import List, Tuple, Optional


def find(xs: List[int], target: int) -> int:
    for i in range(len(xs)):
        if xs[i] == target:
            return i
    return -1
