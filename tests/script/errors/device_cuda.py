import torch
from torch import Tensor


def f(x: Tensor) -> Tensor:
    return torch.zeros(3, device="cuda") + x
