import torch
from torch import Tensor
from typing import List


def unary_all(x: Tensor) -> List[Tensor]:
    p = x.abs() + 0.1
    return [torch.abs(x), torch.sign(x), torch.exp(x), torch.expm1(x), torch.log(p), torch.log1p(p),
            torch.log2(p), torch.log10(p), torch.sqrt(p), torch.rsqrt(p), torch.reciprocal(p),
            torch.square(x), torch.sin(x), torch.cos(x), torch.tan(x), torch.tanh(x),
            torch.sinh(x), torch.cosh(x), torch.sigmoid(x), torch.erf(x)]


def inverse_trig(x: Tensor, y: Tensor) -> List[Tensor]:
    c = x.clamp(-0.99, 0.99)
    return [torch.asin(c), torch.acos(c), torch.atan(x), torch.atan2(x, y)]


def as_methods(x: Tensor) -> List[Tensor]:
    p = x.abs() + 0.1
    return [x.abs(), x.exp(), p.log(), p.sqrt(), x.sin(), x.cos(), x.tanh(), x.sigmoid(), x.neg(), x.sign()]


def domain(x: Tensor) -> List[Tensor]:
    # nan and inf flow through like PyTorch: no errors
    return [torch.log(x), torch.sqrt(x), torch.reciprocal(x)]
