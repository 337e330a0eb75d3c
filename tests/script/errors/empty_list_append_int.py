import torch
from typing import List


def f(n: int) -> int:
    xs = []
    for i in range(n):
        xs.append(i)
    return len(xs)
