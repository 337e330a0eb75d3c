import torch
from typing import List


def floor_ops(a: int, b: int) -> List[int]:
    # Python semantics: // rounds toward -inf, % takes the divisor's sign
    return [a // b, a % b, -a // b, -a % b, a // -b, a % -b]


def true_div(a: int, b: int) -> float:
    return a / b


def int_pow(b: int, e: int) -> int:
    return b ** e


def literal_pow() -> int:
    return 2 ** 10 + 3 ** 3
