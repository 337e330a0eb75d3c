import torch
from torch import Tensor
from typing import List


def expands(x: Tensor, y: Tensor) -> List[Tensor]:
    # x: (3, 1), y: (3, 4)
    return [x.expand(3, 4), x.expand(-1, 5), x.expand_as(y), x.expand(2, 3, 4), x.repeat(2, 3), y.repeat(1, 1, 2)]


def clone_is_copy(x: Tensor) -> List[Tensor]:
    c = x.clone()
    c += 1.0
    v = x.contiguous()
    return [x, c, v]


def bad_expand(x: Tensor) -> Tensor:
    return x.expand(4, 4)
