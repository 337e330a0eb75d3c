import torch
from torch import Tensor


def views(x: Tensor, i: int) -> Tensor:
    a = x[0]
    b = x[-1]
    c = x[1:3]
    d = x[::2]
    e = x[:, 1:3, None]
    f = x[..., 0]
    g = x[i, :]
    h = x[1:-1:2, ::-1]
    k = x[None]
    m = x[x > 0]
    n = x[:]
    o = x[(0, 1)]
    x[0] = 1.0
    x[0, 1] = 2.0
    x[1:3] = a
    x[m] = 0.0
    return a + b
