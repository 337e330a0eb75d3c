import torch
from typing import List


def quicksort(xs: List[int]) -> List[int]:
    if len(xs) <= 1:
        return xs
    pivot = xs[len(xs) // 2]
    less: List[int] = []
    equal: List[int] = []
    greater: List[int] = []
    for x in xs:
        if x < pivot:
            less.append(x)
        elif x > pivot:
            greater.append(x)
        else:
            equal.append(x)
    out = quicksort(less)
    for x in equal:
        out.append(x)
    for x in quicksort(greater):
        out.append(x)
    return out
