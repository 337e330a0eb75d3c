import torch
from typing import List


def first_positive(xs: List[int]) -> int:
    # `and` must not evaluate xs[i] once i == len(xs)
    i = 0
    while i < len(xs) and xs[i] <= 0:
        i += 1
    return i


def safe_ratio(a: int, b: int) -> bool:
    # `or` must not divide by zero when b == 0
    return b == 0 or a // b > 2


def any_flag(a: bool, b: bool, c: bool) -> bool:
    return (a and not b) or (b and c) or not (a or b or c)
