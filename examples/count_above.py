import torch
from torch import Tensor


def count_above(x: Tensor, t: float) -> int:
    """How many elements of x exceed t: a loop over the tensor with a data-dependent branch."""
    n = 0
    for i in range(x.size(0)):
        if float(x[i]) > t:
            n += 1
    return n
