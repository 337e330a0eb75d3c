import torch
from torch import Tensor


def check_range(n: int) -> int:
    if n < 0:
        raise ValueError("n must be non-negative")
    if n > 100:
        raise Exception("n is too large")
    return n * 2


def raise_in_loop(x: Tensor, limit: int) -> Tensor:
    i = 0
    while bool((x < 100.0).any()):
        x = x * 3.0
        i += 1
        if i > limit:
            raise RuntimeError("did not converge")
    return x


def raise_fstring(n: int) -> int:
    if n % 2 == 1:
        raise ValueError(f"expected an even number, got {n}")
    return n // 2
