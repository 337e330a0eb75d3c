import numpy as np


def fact(k):
    if k <= 1:
        return 1
    return k * fact(k - 1)


def lerp(a, b, t):
    return a + (b - a) * t


def shifted(x, s):
    return x - s


def with_helpers(x, n):
    # lerp's first call passes (int, int, float), its second (float, int, float): `a` becomes
    # a float, as an int argument converts to it; fact calls itself with an int.
    acc = 0.0
    for i in range(n):
        acc += lerp(0, 10, i / n)
    acc += lerp(1.5, 2, 0.5)
    return shifted(x, acc) * fact(n)
