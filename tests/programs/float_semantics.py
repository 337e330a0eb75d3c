import math
import torch
from typing import List


def float_ops(a: float, b: float) -> List[float]:
    return [a + b, a - b, a * b, a / b, a // b, a % b, a ** 2, -a, abs(a)]


def mixed(i: int, x: float) -> float:
    # int where float is expected; int + float is float
    return i + x * i - i / 2


def specials(x: float) -> List[bool]:
    y = x * 0.0
    return [math.isnan(y), math.isinf(x), x > 1e308, x == x]


def inf_arith() -> float:
    return -math.inf + 1.0
