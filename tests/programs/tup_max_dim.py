import torch
from torch import Tensor
from typing import Tuple


def row_max(x: Tensor) -> Tuple[Tensor, Tensor]:
    v, i = torch.max(x, 1)
    return v, i


def col_min_keep(x: Tensor) -> Tuple[Tensor, Tensor]:
    v, i = x.min(dim=0, keepdim=True)
    return v, i


def max_neg_dim(x: Tensor) -> Tensor:
    values, indices = torch.max(x, dim=-1)
    return values * indices.float()
