import torch
from torch import Tensor
from typing import List, Tuple


def find_in_matrix(x: Tensor, target: float) -> Tuple[int, int]:
    # return from three loop levels deep
    for b in range(x.size(0)):
        for i in range(x.size(1)):
            j = 0
            while j < x.size(2):
                if float(x[b, i, j]) == target:
                    return b, i * x.size(2) + j
                j += 1
    return -1, -1


def count_until(xs: List[int], stop: int, skip: int) -> int:
    # break and continue in the same loop, inside a while
    total = 0
    rounds = 0
    while rounds < 2:
        rounds += 1
        for v in xs:
            if v == skip:
                continue
            if v == stop:
                break
            total += v
    return total


def loop_else_free(n: int) -> int:
    # flag instead of for-else
    found = False
    k = 2
    for d in range(2, n):
        if n % d == 0:
            found = True
            k = d
            break
    if found:
        return k
    return n
