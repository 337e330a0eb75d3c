import torch
from torch import Tensor
from typing import List, Tuple


@torch.jit.script
def cumulative(xs: List[Tensor], decay: float) -> Tuple[Tensor, List[Tensor]]:
    out: List[Tensor] = []
    acc = torch.zeros_like(xs[0])
    for i in range(len(xs)):
        acc = acc * decay + xs[i]
        if bool(acc.sum() > 100.0):
            acc = acc / acc.norm()
        out.append(acc.clone())
    return acc, out


@torch.jit.script
def window_sums(x: Tensor, w: int) -> Tensor:
    n = x.size(0)
    res = torch.empty(n - w + 1)
    for start in range(0, n - w + 1):
        res[start] = x[start:start + w].sum()
    return res
