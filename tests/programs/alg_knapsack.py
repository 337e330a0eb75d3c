import torch
from torch import Tensor


def knapsack(weights: Tensor, values: Tensor, capacity: int) -> int:
    # 0/1 knapsack by dynamic programming over an int64 table row
    best = torch.zeros(capacity + 1, dtype=torch.int64)
    for i in range(weights.size(0)):
        w = int(weights[i])
        v = int(values[i])
        if w > capacity:
            continue
        shifted = best[: capacity + 1 - w] + v
        best[w:] = torch.maximum(best[w:], shifted)
    return int(best.max())
