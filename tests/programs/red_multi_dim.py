import torch
from torch import Tensor
from typing import List


def dims3(x: Tensor) -> List[Tensor]:
    return [x.sum([0, 2]), x.mean([1, 2], keepdim=True), torch.sum(x, dim=[-1, -2]), x.amax([0, 1])]


def reduce_then_loop(x: Tensor) -> Tensor:
    # per-row max via torch.max(dim) inside a loop over rows
    out = torch.zeros(x.size(0), dtype=torch.int64)
    for i in range(x.size(0)):
        v, idx = torch.max(x[i], 0)
        out[i] = idx
    return out


def bad_dim(x: Tensor) -> Tensor:
    return x.sum(2)


def empty_reductions(x: Tensor) -> List[Tensor]:
    # sum/prod/mean of no elements are defined (mean is nan); any/all too
    return [x.sum(), x.prod(), x.mean(), x.any(), x.all(), x.sum(0)]


def empty_max(x: Tensor) -> Tensor:
    # max has no identity: PyTorch raises on an empty tensor
    return x.max()
