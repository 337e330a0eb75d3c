import torch
from typing import Tuple


def find_pair(target: int, n: int) -> Tuple[int, int]:
    # first (i, j) with i * j == target; break out of both loops with a flag
    fi = -1
    fj = -1
    found = False
    for i in range(1, n):
        for j in range(i, n):
            if i * j == target:
                fi = i
                fj = j
                found = True
                break
            if i * j > target:
                break
        if found:
            break
    return fi, fj
