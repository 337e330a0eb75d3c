import torch
from typing import List


def add(a, b):
    # type: (int, Tensor) -> Tensor
    return b + a


def same_line(a):  # type: (int) -> int
    return a


def lists(n):
    # type: (int) -> List[int]
    xs = []  # type: List[int]
    ys = []  # type: ignore
    zs = [1]  # an ordinary comment
    for i in range(n):
        xs.append(i)
    return xs
