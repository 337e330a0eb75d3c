import torch
from torch import Tensor
from typing import Tuple


def newton_sqrt(a: float, tol: float) -> Tuple[float, int]:
    x = a if a > 1.0 else 1.0
    it = 0
    while True:
        nx = 0.5 * (x + a / x)
        it += 1
        if abs(nx - x) < tol:
            x = nx
            break
        x = nx
    return x, it


def tensor_newton(a: Tensor, iters: int) -> Tensor:
    x = torch.ones_like(a)
    i = 0
    while True:
        if i >= iters:
            break
        x = 0.5 * (x + a / x)
        i += 1
    return x
