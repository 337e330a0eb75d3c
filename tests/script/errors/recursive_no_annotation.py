import torch
from torch import Tensor
from typing import List, Tuple, Optional


def fact(n: int):
    return n * fact(n - 1) if n > 1 else 1
