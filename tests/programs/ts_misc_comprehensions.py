import torch
from torch import Tensor
from typing import List


# list comprehensions over ranges, lists and tensors


def squares(n: int) -> List[int]:
    return [i * i for i in range(n)]


def scaled(xs: List[float], s: float) -> List[float]:
    return [x * s for x in xs]


def row_sums(x: Tensor) -> Tensor:
    sums = [row.sum() for row in x]
    return torch.stack(sums)


def unbind_norms(x: Tensor) -> Tensor:
    return torch.stack([t.norm() for t in x.unbind(1)])


def shapes_after(x: Tensor, dims: List[int]) -> List[int]:
    return [x.size(d) for d in dims]


def padded(sizes: List[int], m: int) -> List[int]:
    return [s if s >= m else m for s in sizes]
