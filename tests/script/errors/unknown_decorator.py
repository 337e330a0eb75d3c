import torch
from torch import Tensor
from typing import List, Tuple, Optional


def deco(fn):
    return fn


@deco
def f(x: Tensor) -> Tensor:
    return x
