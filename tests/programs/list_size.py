import torch
from torch import Tensor
from typing import List


def shape_list(x: Tensor) -> List[int]:
    s = x.size()
    out: List[int] = []
    for d in s:
        out.append(d)
    out.append(len(s))
    return out


def reshape_roundtrip(x: Tensor) -> Tensor:
    dims = x.shape
    n = len(dims)
    return x.reshape([dims[0], -1]).reshape(dims)[..., 0] * n


def flat_size(x: Tensor) -> int:
    p = 1
    for d in x.shape:
        p *= d
    return p
