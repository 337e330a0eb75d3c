import torch
from torch import Tensor
from typing import List


def rounding(x: Tensor) -> List[Tensor]:
    # torch.round is half-to-even
    return [torch.floor(x), torch.ceil(x), torch.round(x), torch.trunc(x)]


def clamps(x: Tensor) -> List[Tensor]:
    return [torch.clamp(x, -1.0, 1.0), x.clamp(min=0.0), x.clamp(max=0.5), torch.clip(x, -0.5, 0.5),
            x.clip(0.0, 2.0)]


def int_clamp(x: Tensor) -> Tensor:
    return x.clamp(-2, 3)


def min_max_elementwise(x: Tensor, y: Tensor) -> List[Tensor]:
    return [torch.maximum(x, y), torch.minimum(x, y), torch.max(x, y), torch.min(x, y)]
