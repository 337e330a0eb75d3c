import torch
from torch import Tensor
from typing import Optional


def layer_norm(x: Tensor, weight: Optional[Tensor], bias: Optional[Tensor], eps: float = 1e-5) -> Tensor:
    mean = x.mean(dim=-1, keepdim=True)
    var = ((x - mean) ** 2).mean(dim=-1, keepdim=True)
    y = (x - mean) / torch.sqrt(var + eps)
    if weight is not None:
        y = y * weight
    if bias is not None:
        y = y + bias
    return y


def rms_norm(x: Tensor, weight: Tensor, eps: float = 1e-6) -> Tensor:
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight


def batch_norm_eval(x: Tensor, mean: Tensor, var: Tensor, weight: Tensor, bias: Tensor) -> Tensor:
    return (x - mean[None, :]) / torch.sqrt(var[None, :] + 1e-5) * weight[None, :] + bias[None, :]
