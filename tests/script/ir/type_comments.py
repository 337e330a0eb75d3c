import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(a, b):
    # type: (int, Tensor) -> Tensor
    xs = []  # type: List[int]
    ys = torch.jit.annotate(List[Tensor], [])
    xs.append(a)
    ys.append(b)
    return ys[0] * xs[0]
