import torch
from typing import List


def build(n: int) -> List[int]:
    xs: List[int] = []
    for i in range(n):
        xs.append(i * i)
    xs[0] = 100
    return xs


def stats(xs: List[int]) -> List[int]:
    return [len(xs), xs[0], xs[-1], min(xs), max(xs), sum(xs)]


def contains(xs: List[int], v: int) -> bool:
    return v in xs


def not_contains(xs: List[float], v: float) -> bool:
    return v not in xs
