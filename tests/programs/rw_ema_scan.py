import torch
from torch import Tensor
from typing import Tuple


def ema(x: Tensor, alpha: float) -> Tensor:
    out = torch.empty_like(x)
    acc = x[0]
    for t in range(x.size(0)):
        acc = alpha * x[t] + (1.0 - alpha) * acc
        out[t] = acc
    return out


def running_max_min(x: Tensor) -> Tuple[Tensor, Tensor]:
    hi = x.clone()
    lo = x.clone()
    for t in range(1, x.size(0)):
        hi[t] = torch.maximum(hi[t - 1], x[t])
        lo[t] = torch.minimum(lo[t - 1], x[t])
    return hi, lo
