import math
from typing import List


def f(x: float, xs: List[int]) -> float:
    return math.sqrt(abs(x)) + max(xs) + min(1, 2.5) + float(sum(xs)) + round(x) + math.floor(x)
