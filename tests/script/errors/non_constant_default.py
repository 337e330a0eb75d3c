import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(x: Tensor, y: Tensor = torch.rand(2)) -> Tensor:
    return x + y
