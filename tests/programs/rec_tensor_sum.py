import torch
from torch import Tensor


def tree_sum(x: Tensor) -> Tensor:
    # recursive halving reduction over the first dimension
    n = x.size(0)
    assert n > 0, "tree_sum of an empty tensor"
    if n == 1:
        return x[0]
    half = n // 2
    return tree_sum(x[:half]) + tree_sum(x[half:])
