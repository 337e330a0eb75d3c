import math
import torch
from torch import Tensor


# kornia.geometry style degree/radian conversions and pixel coordinate normalization


def rad2deg(tensor: Tensor) -> Tensor:
    if not isinstance(tensor, torch.Tensor):
        raise TypeError(f"Input type is not a Tensor. Got {type(tensor)}")
    return 180.0 * tensor / torch.tensor(math.pi, device=tensor.device, dtype=tensor.dtype)


def deg2rad(tensor: Tensor) -> Tensor:
    if not isinstance(tensor, torch.Tensor):
        raise TypeError(f"Input type is not a Tensor. Got {type(tensor)}")
    return tensor * torch.tensor(math.pi).to(tensor.device).type(tensor.dtype) / 180.0


def normalize_pixel_coordinates(pixel_coordinates: Tensor, height: int, width: int, eps: float = 1e-8) -> Tensor:
    if pixel_coordinates.shape[-1] != 2:
        raise ValueError("Input pixel_coordinates must be of shape (*, 2).")
    hw = torch.stack(
        [
            torch.tensor(width, device=pixel_coordinates.device, dtype=pixel_coordinates.dtype),
            torch.tensor(height, device=pixel_coordinates.device, dtype=pixel_coordinates.dtype),
        ]
    )
    factor = torch.tensor(2.0, device=pixel_coordinates.device, dtype=pixel_coordinates.dtype) / (hw - 1).clamp(eps)
    return factor * pixel_coordinates - 1
