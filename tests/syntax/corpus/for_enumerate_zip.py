from typing import List


def pairs(xs: List[int], ys: List[int]) -> int:
    total = 0
    for i, x in enumerate(xs):
        total += i * x
    for a, b in zip(xs, ys):
        total += a * b
    for (a, b) in zip(xs, ys):
        total -= a
    return total
