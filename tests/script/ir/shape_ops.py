import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(x: Tensor) -> Tuple[int, int, Tensor]:
    n = x.size(0)
    m = x.shape[1]
    y = x.view(n * m).unsqueeze(0).T
    return n, len(x), torch.cat([y, y], dim=1)
