import torch
from typing import List


def min_max(a: int, b: int, c: int) -> List[int]:
    return [min(a, b), max(a, b), min(a, min(b, c)), max(max(a, b), c), abs(a - b)]


def float_min_max(a: float, b: float) -> List[float]:
    return [min(a, b), max(a, b), abs(a), float(int(a)), float(round(b))]


def conversions(x: float, n: int, flag: bool) -> List[float]:
    return [float(n), float(int(x)), float(bool(n)), float(int(flag)), float(bool(x))]


def round_half_even(x: float) -> int:
    return round(x)


def list_builtins(xs: List[int]) -> List[int]:
    return [len(xs), min(xs), max(xs), sum(xs)]
