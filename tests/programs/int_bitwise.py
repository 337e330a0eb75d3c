import torch
from typing import List


def bits(a: int, b: int) -> List[int]:
    return [a & b, a | b, a ^ b, ~a, a << 3, a >> 2, -a >> 1]


def popcount(n: int) -> int:
    c = 0
    while n > 0:
        c += n & 1
        n >>= 1
    return c


def bool_ops(a: bool, b: bool) -> List[bool]:
    return [a & b, a | b, a ^ b, not a]
