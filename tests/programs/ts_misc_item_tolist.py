import torch
from torch import Tensor
from typing import List


# .item() and .tolist() typed by the tensor's dtype; linspace with one step; x.where(cond, other)


def big_int(x: Tensor) -> int:
    return int(x.max().item())


def exact_sum(x: Tensor) -> int:
    return x.sum().item() + 1


def float_item(x: Tensor) -> float:
    return x.mean().item() * 2.0


def int_list(x: Tensor) -> List[int]:
    return x.tolist()


def float_list(x: Tensor) -> List[float]:
    return x.tolist()


def linspace_one(a: float, b: float) -> Tensor:
    return torch.linspace(a, b, 1)


def method_where(x: Tensor, other: Tensor) -> Tensor:
    return x.where(x > 0, other)


def method_where_scalar(x: Tensor) -> Tensor:
    return x.where(x > 0, 0.0)
