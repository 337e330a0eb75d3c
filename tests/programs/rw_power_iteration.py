import torch
from torch import Tensor
from typing import Tuple


def power_iteration(a: Tensor, v: Tensor, tol: float, max_iter: int) -> Tuple[Tensor, float, int]:
    v = v / v.norm()
    lam = 0.0
    for it in range(max_iter):
        w = a @ v
        new_lam = float(v.dot(w))
        v = w / w.norm()
        if abs(new_lam - lam) < tol:
            return v, new_lam, it + 1
        lam = new_lam
    return v, lam, max_iter
