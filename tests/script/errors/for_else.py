import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(xs: List[int]) -> int:
    for x in xs:
        if x == 3:
            break
    else:
        return -1
    return 3
