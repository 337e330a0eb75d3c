import math


def f(x: float) -> float:
    return math.gamma2(x)
