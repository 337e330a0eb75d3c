import torch
from typing import Tuple


def swap(a: int, b: int) -> Tuple[int, int]:
    a, b = b, a
    return a, b


def rotate3(a: float, b: float, c: float) -> Tuple[float, float, float]:
    a, b, c = b, c, a
    return a, b, c


def chained_assign(n: int) -> Tuple[int, int, int]:
    x = y = z = n * 2
    x += 1
    return x, y, z
