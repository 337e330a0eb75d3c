import math
from typing import Tuple


def extras(a: int, b: int, x: float) -> Tuple[float, int, Tuple[int, int], float]:
    return math.log(x, 2), pow(a, 3), divmod(a, b), pow(x, 0.5)
