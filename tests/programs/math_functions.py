import math
import torch
from typing import List


def unary(x: float) -> List[float]:
    return [math.sqrt(x), math.exp(x), math.log(x), math.log2(x), math.log10(x), math.sin(x),
            math.cos(x), math.tan(x), math.tanh(x), math.fabs(-x), math.pow(x, 1.5)]


def rounding(x: float) -> List[int]:
    return [math.floor(x), math.ceil(x), int(x), round(x)]


def constants() -> List[float]:
    return [math.pi, math.e, math.pi * 2.0 - math.e]


def gelu_scalar(x: float) -> float:
    return 0.5 * x * (1.0 + math.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


def bad_sqrt(x: float) -> float:
    return math.sqrt(x)


def nan_checks() -> List[bool]:
    v = math.nan
    return [math.isnan(v), v == v, v != v, v < 1.0, math.isinf(-math.inf), math.isnan(math.inf - math.inf)]
