import torch
from torch import Tensor


def mask_iadd(x: Tensor) -> Tensor:
    y = x.clone()
    y[y > 0.2] += 10.0
    y[0] *= 2.0
    y[torch.tensor([1])] -= 1.0
    return y
