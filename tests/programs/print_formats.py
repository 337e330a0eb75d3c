import torch
from torch import Tensor
from typing import List, Tuple


def formats(x: Tensor) -> int:
    print(x.long())
    print(x.double())
    print(x > 0)
    print(x.to(torch.int32))
    print(x.sum())
    return x.numel()


def containers(n: int) -> List[int]:
    xs: List[int] = []
    for i in range(n):
        xs.append(i * i)
    print(xs)
    t = (n, 1.5, True)
    print(t)
    print(None)
    return xs


def float_repr(a: float) -> float:
    print(a)
    print(a / 3.0)
    print(1e20 * a)
    print(-0.0)
    return a
