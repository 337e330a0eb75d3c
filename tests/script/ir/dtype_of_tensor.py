import torch
from torch import Tensor


def f(x: Tensor, k: int) -> Tensor:
    z = torch.zeros(k, dtype=x.dtype)
    return z + x.sum().to(x.dtype)
