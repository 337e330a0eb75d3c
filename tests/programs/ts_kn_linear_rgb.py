import torch
from torch import Tensor


# kornia.color style sRGB <-> linear RGB and RGB <-> BGR


def rgb_to_linear_rgb(image: Tensor) -> Tensor:
    if not isinstance(image, torch.Tensor):
        raise TypeError(f"Input type is not a Tensor. Got {type(image)}")
    if len(image.shape) < 3 or image.shape[-3] != 3:
        raise ValueError("Input size must have a shape of (*, 3, H, W)")
    return torch.where(image > 0.04045, torch.pow(((image + 0.055) / 1.055), 2.4), image / 12.92)


def linear_rgb_to_rgb(image: Tensor) -> Tensor:
    if not isinstance(image, torch.Tensor):
        raise TypeError(f"Input type is not a Tensor. Got {type(image)}")
    threshold = 0.0031308
    return torch.where(image > threshold, 1.055 * torch.pow(image.clamp(min=threshold), 1 / 2.4) - 0.055,
                       12.92 * image)


def rgb_to_bgr(image: Tensor) -> Tensor:
    if len(image.shape) < 3 or image.shape[-3] != 3:
        raise ValueError("Input size must have a shape of (*, 3, H, W)")
    return image.flip(-3)
