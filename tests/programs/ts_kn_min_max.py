import torch
from torch import Tensor


# kornia.enhance style min-max normalization with isinstance checks on scalars


def normalize_min_max(x: Tensor, min_val: float = 0.0, max_val: float = 1.0, eps: float = 1e-6) -> Tensor:
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"data should be a tensor. Got: {type(x)}.")
    if not isinstance(min_val, float):
        raise TypeError(f"'min_val' should be a float. Got: {type(min_val)}.")
    if not isinstance(max_val, float):
        raise TypeError(f"'b' should be a float. Got: {type(max_val)}.")
    if len(x.shape) < 3:
        raise ValueError(f"Input shape must be at least a 3d tensor. Got: {x.dim()} dims.")
    shape = x.shape
    b, c = shape[0], shape[1]
    x_min = x.view(b, c, -1).min(-1)[0].view(b, c, 1)
    x_max = x.view(b, c, -1).max(-1)[0].view(b, c, 1)
    x_out = (max_val - min_val) * (x.view(b, c, -1) - x_min) / (x_max - x_min + eps) + min_val
    return x_out.view(shape)
