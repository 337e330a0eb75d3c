import torch
from torch import Tensor


def row_norms(x: Tensor) -> Tensor:
    # iterating a tensor yields its first-dimension slices
    out = torch.zeros(x.size(0))
    i = 0
    for row in x:
        out[i] = (row * row).sum().sqrt()
        i += 1
    return out


def sum_elements(v: Tensor) -> float:
    s = 0.0
    for e in v:
        s += e.item()
    return s
