import os
import torch
from torch import Tensor


def f(x: Tensor) -> Tensor:
    return x
