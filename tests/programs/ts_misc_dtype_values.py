import torch
from torch import Tensor


# dtype values: comparisons, membership, variables, parameters, finfo, is_floating_point


def dtype_code(x: Tensor) -> int:
    dt = x.dtype
    if dt == torch.float32:
        return 32
    if dt is torch.float64:
        return 64
    if dt in (torch.int32, torch.int64):
        return 1
    return 0


def eps_of(x: Tensor) -> float:
    # torch.finfo is not scriptable: scripted code spells the epsilons out
    if not x.is_floating_point():
        return 0.0
    return 1.1920928955078125e-07 if x.dtype == torch.float32 else 2.220446049250313e-16


def safe_div(a: Tensor, b: Tensor) -> Tensor:
    eps = eps_of(a) if a.is_floating_point() else 1e-6
    return a / (b + eps)


def cast_to(x: Tensor, dtype: torch.dtype) -> Tensor:
    if x.dtype != dtype:
        x = x.to(dtype)
    return x * 2


def cast_like(x: Tensor, y: Tensor) -> Tensor:
    return cast_to(x, y.dtype)


def same_dtype(x: Tensor, y: Tensor) -> bool:
    return x.dtype == y.dtype and torch.is_floating_point(x)
