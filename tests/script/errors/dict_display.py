import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(x: int) -> int:
    d = {"a": x, **{"b": 1}}
    return x
