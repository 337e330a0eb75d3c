import torch
from torch import Tensor


def set_scalars(n: int) -> Tensor:
    out = torch.zeros(n, n)
    for i in range(n):
        out[i, i] = float(i) + 0.5
        out[i, n - 1 - i] = -1.0
    out[0] = 7.0
    return out


def set_slices(x: Tensor, t: Tensor) -> Tensor:
    out = x.clone()
    out[1:3] = t
    out[:, 0] = 0.0
    out[-1, 1:] = t[0, 1:] * 10
    return out


def set_mask(x: Tensor, v: float) -> Tensor:
    out = x.clone()
    out[out < 0] = v
    return out


def set_row_broadcast(x: Tensor, row: Tensor) -> Tensor:
    out = x.clone()
    for i in range(out.size(0)):
        if i % 2 == 1:
            out[i] = row
    return out


def set_int_from_float(n: int) -> Tensor:
    # assigning a float into an int64 tensor truncates, as PyTorch does
    out = torch.zeros(n, dtype=torch.int64)
    for i in range(n):
        out[i] = i * 1.75
    return out


def set_out_of_range(x: Tensor, i: int) -> Tensor:
    out = x.clone()
    out[i] = 1.0
    return out
