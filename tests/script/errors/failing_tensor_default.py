import torch
from torch import Tensor


def f(x: Tensor, y: Tensor = torch.zeros(-1)) -> Tensor:
    return x + y
