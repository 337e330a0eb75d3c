import torch
from torch import Tensor
from typing import List


def compares(x: Tensor, y: Tensor) -> List[Tensor]:
    return [x == y, x != y, x < y, x <= y, x > y, x >= y, torch.eq(x, y), torch.ne(x, 0.0), torch.lt(x, y),
            torch.le(x, y), torch.gt(x, 0), torch.ge(x, y)]


def logical(a: Tensor, b: Tensor) -> List[Tensor]:
    return [torch.logical_and(a, b), torch.logical_or(a, b), torch.logical_not(a), a & b, a | b, a ^ b, ~a]


def float_checks(x: Tensor) -> List[Tensor]:
    return [torch.isnan(x), torch.isinf(x), torch.isfinite(x), x.isnan()]


def where_ops(c: Tensor, x: Tensor, y: Tensor) -> List[Tensor]:
    return [torch.where(c, x, y), torch.where(c, x, 0.0), torch.where(x > 0, x, -x)]


def int_bitwise(a: Tensor, b: Tensor) -> List[Tensor]:
    return [a & b, a | b, a ^ b, ~a]
