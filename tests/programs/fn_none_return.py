import torch
from torch import Tensor
from typing import List


def fill_diag(out: Tensor, v: float) -> None:
    for i in range(min(out.size(0), out.size(1))):
        out[i, i] = v


def log_value(buf: List[int], v: int) -> None:
    if v < 0:
        return
    buf.append(v)


def build(n: int, v: float) -> Tensor:
    out = torch.zeros(n, n + 1)
    fill_diag(out, v)
    return out


def collect(xs: List[int]) -> List[int]:
    buf: List[int] = []
    for x in xs:
        log_value(buf, x)
    return buf


def nothing(x: Tensor) -> None:
    x.add(1)
