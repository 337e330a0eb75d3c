import math
import torch
from torch import Tensor


def dtw(a: Tensor, b: Tensor) -> float:
    # dynamic time warping distance between two 1-d sequences
    n = a.size(0)
    m = b.size(0)
    cost = torch.full([n + 1, m + 1], math.inf, dtype=torch.float64)
    cost[0, 0] = 0.0
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            d = abs(float(a[i - 1]) - float(b[j - 1]))
            best = min(float(cost[i - 1, j]), float(cost[i, j - 1]), float(cost[i - 1, j - 1]))
            cost[i, j] = d + best
    return float(cost[n, m])
