import torch
from torch import Tensor
from typing import List


def add_shapes(x: Tensor, y: Tensor) -> Tensor:
    # with a short y the broadcast error happens in the third iteration only
    acc = x
    for i in range(3):
        acc = acc + y[i:i + 2]
    return acc


def int_div_in_loop(n: int) -> int:
    total = 0
    for i in range(n, -1, -1):
        total += 100 // i
    return total


def mod_zero(a: int, b: int) -> int:
    return a % b


def after_print(x: Tensor) -> Tensor:
    print("before the error")
    return x[x.size(0)]


def recursion_guard(xs: List[int], i: int) -> int:
    if i == len(xs):
        return 0
    return xs[i] + recursion_guard(xs, i + 1)
