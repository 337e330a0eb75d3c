import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(n: int) -> int:
    s = {i for i in range(n)}
    return n
