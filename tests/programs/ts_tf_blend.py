import torch
from torch import Tensor


# torchvision transforms style: the value range of a dtype, blending, brightness/contrast


def _max_value(dtype: torch.dtype) -> float:
    if dtype == torch.int32:
        return 2147483647.0
    elif dtype == torch.int64:
        return 9223372036854775807.0
    elif dtype == torch.bool:
        return 1.0
    return 1.0


def _blend(img1: Tensor, img2: Tensor, ratio: float) -> Tensor:
    ratio = float(ratio)
    bound = _max_value(img1.dtype)
    return (ratio * img1 + (1.0 - ratio) * img2).clamp(0, bound).to(img1.dtype)


def gray(img: Tensor) -> Tensor:
    r, g, b = img.unbind(dim=-3)
    return (0.2989 * r + 0.587 * g + 0.114 * b).to(img.dtype).unsqueeze(-3)


def adjust_brightness(img: Tensor, brightness_factor: float) -> Tensor:
    if brightness_factor < 0:
        raise ValueError(f"brightness_factor ({brightness_factor}) is not non-negative.")
    return _blend(img, torch.zeros_like(img), brightness_factor)


def adjust_contrast(img: Tensor, contrast_factor: float) -> Tensor:
    if contrast_factor < 0:
        raise ValueError(f"contrast_factor ({contrast_factor}) is not non-negative.")
    dtype = img.dtype if torch.is_floating_point(img) else torch.float32
    mean = torch.mean(gray(img).to(dtype), dim=(-3, -2, -1), keepdim=True)
    return _blend(img, mean, contrast_factor)


def max_of(img: Tensor) -> float:
    return _max_value(img.dtype)
