import torch
from torch import Tensor


def scalar_loop(n: int) -> int:
    # Sum of Collatz stopping times of 1 .. n-1.  Pure integer loop, no tensors.
    total = 0
    for i in range(1, n):
        x = i
        while x != 1:
            if x % 2 == 0:
                x = x // 2
            else:
                x = 3 * x + 1
            total += 1
    return total
