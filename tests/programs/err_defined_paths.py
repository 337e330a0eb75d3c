import torch
from torch import Tensor


def pick(n: int) -> int:
    # `a` is only defined on the path that does not raise: still defined where it is used
    if n > 0:
        a = n * 2
    else:
        if n == 0:
            raise ValueError("zero")
        else:
            raise Exception("negative")
    return a


def check_flag(cond):
    # unannotated parameter: a Tensor, converted by bool()
    if bool(cond):
        raise RuntimeError
    return 1


def always_raises(x):
    # type: (Tensor) -> Tensor
    raise NotImplementedError("always raises")


def guarded_loop(xs: Tensor) -> Tensor:
    acc = torch.zeros(1)
    for i in range(xs.size(0)):
        v = xs[i]
        if bool(v < 0):
            raise ValueError(f"negative value at index {i}")
        acc = acc + v
    return acc
