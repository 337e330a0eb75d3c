import torch
from torch import Tensor

# Each function does an in-place op whose input overlaps what it writes, which PyTorch refuses
# ("Please clone() the tensor before performing the operation"); with `clone`, it does so.


def sub_first_row(y: Tensor, clone: bool) -> Tensor:
    if clone:
        y -= y[0].clone()
    else:
        y -= y[0]
    return y


def sub_each_row(y: Tensor, clone: bool) -> Tensor:
    for r in y:
        if clone:
            y -= r.clone()
        else:
            y -= r
    return y


def add_element(x: Tensor, clone: bool) -> Tensor:
    # A 0-d view into x overlaps x too.
    if clone:
        x += x[0].clone()
    else:
        x += x[0]
    return x


def shift_right(x: Tensor, clone: bool) -> Tensor:
    if clone:
        x[1:] = x[:-1].clone()
    else:
        x[1:] = x[:-1]
    return x


def copy_row(x: Tensor, clone: bool) -> Tensor:
    if clone:
        x.copy_(x[0].clone())
    else:
        x.copy_(x[0])
    return x


def disjoint_views(x: Tensor) -> Tensor:
    # Views that do not share memory with the written one, the same view, and a broadcast value
    # in setitem (PyTorch expands it first, so it does not count as overlapping).
    x[0] += x[1]
    x[1:] += x[0]
    x += x
    x.mul_(x)
    x[:] = x[0]
    x[:, :2] += x[:, 2:]
    return x
