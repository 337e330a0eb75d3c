import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(a, b):
    # type: (int) -> Tensor
    return b
