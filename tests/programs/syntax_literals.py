"""Literal forms, docstrings and comments."""
import math
import torch
from typing import List, Tuple


def int_literals() -> List[int]:
    """Docstrings are ignored."""
    return [0x1F, 0b1011, 1_000_000, -0x10, +5]


def float_literals() -> List[float]:
    # comments are ignored too
    return [.5, 1e-3, 2.5E2, 1_000.25, -0.0, 3., math.inf]


def unary_ops(a: int, x: float, b: bool) -> Tuple[int, float, bool, int]:
    return -a, +x, not b, ~a


def in_tuple(v: int) -> bool:
    return v in (1, 2, 3)


def parenthesized(a: int, b: int) -> int:
    c = (a +
         b) * (
        a - b)
    return c \
        + 1
