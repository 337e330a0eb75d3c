import torch
from torch import Tensor


def both(x: Tensor) -> int:
    # 0-d tensors in `and`/`or` and in `if`: converted by bool()
    if x.max() > 0.5 and x.min() < 0.0:
        return 2
    elif x.max() > 0.5 or x.min() < -1.0:
        return 1
    return 0


def not_tensor(x: Tensor) -> bool:
    return not bool(x.any())


def while_tensor(x: Tensor) -> int:
    n = 0
    while x.sum() > 1:
        x = x[1:]
        n += 1
    return n


def if_on_tensor(x: Tensor) -> int:
    # a one-element tensor condition becomes a bool; more elements is a run-time error
    if x > 0:
        return 1
    return 0
