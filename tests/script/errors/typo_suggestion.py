import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(value: int) -> int:
    return valeu * 2
