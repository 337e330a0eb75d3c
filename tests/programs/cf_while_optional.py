import torch
from torch import Tensor
from typing import List, Optional


def next_index(xs: List[int], i: int) -> Optional[int]:
    if i + 1 < len(xs):
        return i + 1
    return None


def walk(xs: List[int]) -> int:
    total = 0
    cur: Optional[int] = 0
    while cur is not None:
        total += xs[cur]
        cur = next_index(xs, cur)
    return total


def halve_until_small(x: Tensor, limit: int) -> Tensor:
    steps = 0
    while bool(x.abs().sum() > 1.0):
        x = x / 2
        steps += 1
        if steps >= limit:
            break
    return x
