import torch
from torch import Tensor
from typing import Tuple


def int32_ops(x: Tensor, y: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
    # int32 stays int32 with int32 and with Python ints
    return x + y, x * 3, x // y, x % y, torch.maximum(x, y)


def int32_accumulate(x: Tensor) -> Tensor:
    acc = torch.zeros(x.size(1), dtype=torch.int32)
    for row in x:
        acc += row
    return acc
