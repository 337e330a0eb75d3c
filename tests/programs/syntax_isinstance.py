import torch
from torch import Tensor
from typing import List, Optional


def describe(x: Tensor, n: int, xs: List[int]) -> List[bool]:
    # isinstance is resolved statically
    return [isinstance(x, Tensor), isinstance(n, int), isinstance(n, float),
            isinstance(x, torch.Tensor)]


def torch_tensor_annotation(x: torch.Tensor, y: Optional[torch.Tensor] = None) -> torch.Tensor:
    if y is None:
        return x.clone()
    return x + y
