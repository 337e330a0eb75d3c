import torch
from torch import Tensor


def floyd_warshall(w: Tensor) -> Tensor:
    # all-pairs shortest paths; inf marks a missing edge
    d = w.clone()
    n = d.size(0)
    for k in range(n):
        d = torch.minimum(d, d[:, k:k + 1] + d[k:k + 1, :])
    return d


def has_negative_cycle(w: Tensor) -> bool:
    d = floyd_warshall(w)
    for i in range(d.size(0)):
        if float(d[i, i]) < 0.0:
            return True
    return False
