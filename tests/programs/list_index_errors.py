import torch
from typing import List


def get(xs: List[int], i: int) -> int:
    return xs[i]


def set_item(xs: List[float], i: int, v: float) -> List[float]:
    xs[i] = v
    return xs
