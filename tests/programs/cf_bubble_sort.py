import torch
from typing import List


def bubble_sort(xs: List[int]) -> List[int]:
    n = len(xs)
    for i in range(n):
        swapped = False
        for j in range(n - 1 - i):
            if xs[j] > xs[j + 1]:
                t = xs[j]
                xs[j] = xs[j + 1]
                xs[j + 1] = t
                swapped = True
        if not swapped:
            break
    return xs
