import torch
from torch import Tensor
from typing import List


def dot_lists(a: List[float], b: List[float]) -> float:
    s = 0.0
    for x, y in zip(a, b):
        s += x * y
    return s


def index_weighted(xs: List[int]) -> int:
    s = 0
    for i, v in enumerate(xs):
        s += i * v
    return s


def enumerate_rows(x: Tensor) -> Tensor:
    out = torch.zeros_like(x)
    for i, row in enumerate(x):
        out[i] = row * i
    return out


def zip_tensors(a: Tensor, b: Tensor) -> Tensor:
    acc = torch.zeros(a.size(1))
    for ra, rb in zip(a, b):
        acc = acc + ra * rb
    return acc
