import torch
from torch import Tensor
from typing import List


def split_and_scale(x: Tensor, parts: int) -> List[Tensor]:
    out: List[Tensor] = []
    n = x.size(0) // parts
    for p in range(parts):
        out.append(x[p * n:(p + 1) * n] * (p + 1))
    return out


def rejoin(x: Tensor, parts: int) -> Tensor:
    pieces = split_and_scale(x, parts)
    pieces.append(torch.zeros(1))
    return torch.cat(pieces)
