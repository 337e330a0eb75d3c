import torch
from torch import Tensor
from typing import List


def joins(a: Tensor, b: Tensor) -> List[Tensor]:
    return [torch.cat([a, b]), torch.cat([a, b], dim=1), torch.cat((a, b, a), -1), torch.stack([a, b]),
            torch.stack([a, b], dim=1), torch.stack((a, b), -1)]


def splits(x: Tensor) -> List[Tensor]:
    out: List[Tensor] = []
    for p in torch.split(x, 2):
        out.append(p)
    for p in x.split([1, 3, 1], dim=0):
        out.append(p * 10)
    for p in x.chunk(2, dim=1):
        out.append(p)
    for p in torch.chunk(x, 3):
        out.append(-p)
    return out


def flips(x: Tensor) -> List[Tensor]:
    return [x.flip(0), torch.flip(x, [1]), x.flip([0, 1]), x.flip(-1)]


def cat_mismatch(a: Tensor, b: Tensor) -> Tensor:
    return torch.cat([a, b], dim=0)
