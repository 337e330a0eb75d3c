import torch
from typing import List


def halves(n: int) -> List[float]:
    out: List[float] = []
    v = 1.0
    for _ in range(n):
        out.append(v)
        v = v / 2
    return out


def flags(xs: List[int]) -> List[bool]:
    out: List[bool] = []
    for x in xs:
        out.append(x % 2 == 0)
    return out
