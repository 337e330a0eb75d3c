import torch
from torch import Tensor
from typing import List


# ops real libraries use: nonzero, einsum, meshgrid, clamp with tensor bounds, tensor slice bounds,
# .to(other), Tensor default arguments


def nonzero_rows(x: Tensor) -> Tensor:
    return torch.nonzero(x > 0)


def nonzero_tuple(x: Tensor) -> List[Tensor]:
    return list(torch.where(x > 0))


def einsum_bmm(a: Tensor, b: Tensor) -> Tensor:
    return torch.einsum("bij,bjk->bik", a, b)


def einsum_trace(a: Tensor) -> Tensor:
    return torch.einsum("ii", a)


def meshgrid_xy(a: Tensor, b: Tensor) -> Tensor:
    gx, gy = torch.meshgrid(a, b, indexing="xy")
    return gx * 10 + gy


def clamp_tensor(x: Tensor, lo: Tensor, hi: Tensor) -> Tensor:
    return torch.clamp(x, min=lo, max=hi)


def clamp_inplace(x: Tensor, lo: Tensor) -> Tensor:
    y = x.clone()
    y.clamp_(min=lo)
    return y


def slice_by_tensor(x: Tensor, n: Tensor) -> Tensor:
    return x[:n]


def to_other(x: Tensor, like: Tensor) -> Tensor:
    return x.to(like) + like


def with_default(x: Tensor, offset: Tensor = torch.tensor(1.5)) -> Tensor:
    return x + offset
