import torch


def in_range(i: int, lo: int, hi: int) -> bool:
    return lo <= i < hi


def ordered(a: float, b: float, c: float) -> bool:
    return a < b < c


def count_inside(n: int, lo: int, hi: int) -> int:
    c = 0
    for i in range(n):
        if lo <= i * i <= hi:
            c += 1
    return c


def not_equal_chain(a: int, b: int, c: int) -> bool:
    return a != b != c
