import torch
from torch import Tensor


def search_sorted(x: Tensor, value: float) -> int:
    lo = 0
    hi = x.size(0)
    while lo < hi:
        mid = (lo + hi) // 2
        if x[mid].item() < value:
            lo = mid + 1
        else:
            hi = mid
    return lo
