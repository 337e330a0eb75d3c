import torch
from torch import Tensor


# torchvision transforms style erase (in place or not) and gamma adjustment


def erase(img: Tensor, i: int, j: int, h: int, w: int, v: Tensor, inplace: bool = False) -> Tensor:
    if not inplace:
        img = img.clone()
    img[..., i : i + h, j : j + w] = v
    return img


def erase_twice(img: Tensor, v: Tensor) -> Tensor:
    a = erase(img, 0, 0, 1, 2, v, inplace=True)
    return a + img


def adjust_gamma(img: Tensor, gamma: float, gain: float = 1.0) -> Tensor:
    if gamma < 0:
        raise ValueError("Gamma should be a non-negative real number")
    result = img
    dtype = img.dtype
    if not torch.is_floating_point(img):
        result = result.to(torch.float32) / 255.0
    result = (gain * result ** gamma).clamp(0, 1)
    if result.dtype != dtype:
        result = (result * 255.0).to(dtype)
    return result
