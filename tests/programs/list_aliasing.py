import torch
from typing import List


def alias_mutation(n: int) -> List[int]:
    a: List[int] = [1, 2, 3]
    b = a
    b.append(n)
    b[0] = -n
    return a


def mutate_param(xs: List[int]) -> int:
    xs.append(7)
    return len(xs)


def caller(n: int) -> List[int]:
    xs: List[int] = [n]
    k = mutate_param(xs)
    xs.append(k)
    return xs
