import torch
from typing import List


def ranges(n: int) -> List[int]:
    out: List[int] = []
    for i in range(n):
        out.append(i)
    for i in range(2, n):
        out.append(i * 10)
    for i in range(n, 0, -2):
        out.append(-i)
    for i in range(1, 3 * n, 3):
        out.append(i + 100)
    return out


def count_down(start: int, stop: int, step: int) -> int:
    c = 0
    for i in range(start, stop, step):
        c += i
    return c
