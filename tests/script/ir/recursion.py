import torch
from torch import Tensor
from typing import List, Tuple, Optional


def fib(n: int) -> int:
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


def fact(n: int):
    if n <= 1:
        return 1
    return n * fact(n - 1)
