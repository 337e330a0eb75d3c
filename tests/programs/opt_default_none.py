import torch
from torch import Tensor
from typing import Optional


def affine(x: Tensor, w: Tensor, bias: Optional[Tensor] = None) -> Tensor:
    y = x @ w
    if bias is not None:
        y = y + bias
    return y


def maybe_scale(x: Tensor, scale: Optional[float] = None) -> Tensor:
    if scale is None:
        return x
    return x * scale
