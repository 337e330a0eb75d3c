import torch


def factorial(n: int) -> int:
    if n <= 1:
        return 1
    else:
        return n * factorial(n - 1)


def factorial_float(n: int) -> float:
    if n == 0:
        return 1.0
    return float(n) * factorial_float(n - 1)
