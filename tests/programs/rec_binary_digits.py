import torch
from typing import List


def digits(n: int, base: int) -> List[int]:
    if n < base:
        return [n]
    out = digits(n // base, base)
    out.append(n % base)
    return out
