import torch
from torch import Tensor
from typing import List


def f(x: Tensor, xs: List[Tensor]) -> Tensor:
    while xs:
        x = x + 1
    return x ** "2"
