import torch
from torch import Tensor
from typing import List


def full_reductions(x: Tensor) -> List[Tensor]:
    return [x.sum(), x.mean(), x.prod(), x.max(), x.min(), torch.amax(x), torch.amin(x), x.argmax(), x.argmin(),
            x.var(), x.std(), x.norm(), torch.logsumexp(x.flatten(), 0)]


def dim_reductions(x: Tensor) -> List[Tensor]:
    return [x.sum(0), x.sum(dim=1), x.sum(-1, keepdim=True), x.mean(dim=0), x.mean(-1, True), x.prod(1),
            torch.amax(x, dim=0), torch.amin(x, -1, True), x.argmax(dim=1), x.argmin(0, keepdim=True),
            x.var(0), x.std(dim=-1), torch.norm(x, dim=1), torch.logsumexp(x, dim=-1)]


def bool_reductions(m: Tensor) -> List[Tensor]:
    return [m.all(), m.any(), m.all(dim=1), m.any(0), m.sum(), torch.all(m, -1), torch.any(m)]


def int_sums(x: Tensor) -> List[Tensor]:
    # sums of int32 and bool promote to int64
    return [x.sum(), x.sum(0), x.prod(), x.max(), x.cumsum(0)]


def int_mean(x: Tensor) -> Tensor:
    # mean of an integer tensor is an error in PyTorch
    return x.mean()
