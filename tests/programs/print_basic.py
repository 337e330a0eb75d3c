import torch
from torch import Tensor


def show(x: Tensor, n: int, f: float, b: bool) -> Tensor:
    print(x)
    print(n)
    print(f)
    print(b)
    print("label:", n, f)
    print("sum is", x.sum())
    return x * 2


def loop_print(n: int) -> int:
    total = 0
    for i in range(n):
        total += i
        print("step", i, total)
    return total
