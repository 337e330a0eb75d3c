import torch
from typing import List


def aug(n: int) -> List[int]:
    a = n
    a += 3
    b = a
    b -= 10
    c = b
    c *= -2
    d = c
    d //= 3
    e = d
    e %= 7
    f = e
    f **= 2
    g = n
    g &= 6
    g |= 8
    g ^= 1
    return [a, b, c, d, e, f, g]


def float_aug(x: float) -> float:
    y = x
    y += 1
    y *= 2.5
    y /= 4
    y -= 0.25
    y **= 2
    y //= 1.5
    y %= 0.7
    return y
