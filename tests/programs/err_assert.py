import torch
from torch import Tensor


def checked_log(x: Tensor) -> Tensor:
    assert bool((x > 0).all()), "x must be positive"
    return torch.log(x)


def checked_div(a: int, b: int) -> int:
    assert b != 0
    return a // b


def shape_check(x: Tensor, y: Tensor) -> Tensor:
    assert x.size(0) == y.size(0), "batch sizes differ"
    assert x.dim() == 2 and y.dim() == 2, "expected matrices"
    return torch.cat([x, y], dim=1)
