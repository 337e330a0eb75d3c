import math
import torch
from torch import Tensor


# kornia.color style RGB -> HLS: max/min with [0] and .values, where on a mask


def rgb_to_hls(image: Tensor, eps: float = 1e-8) -> Tensor:
    if not isinstance(image, torch.Tensor):
        raise TypeError(f"Input type is not a Tensor. Got {type(image)}")
    if len(image.shape) < 3 or image.shape[-3] != 3:
        raise ValueError("Input size must have a shape of (*, 3, H, W)")
    r, g, b = image.unbind(-3)
    maxc, imax = image.max(-3)
    minc = image.min(-3)[0]
    l = (maxc + minc) / 2
    deltac = maxc - minc
    s = torch.where(l < 0.5, deltac / (maxc + minc + eps), deltac / (2 - (maxc + minc) + eps))
    hi = torch.zeros_like(deltac)
    hi[imax == 0] = (((g - b) / (deltac + eps)) % 6)[imax == 0]
    hi[imax == 1] = (((b - r) / (deltac + eps)) + 2)[imax == 1]
    hi[imax == 2] = (((r - g) / (deltac + eps)) + 4)[imax == 2]
    h = 2.0 * math.pi * (60.0 * hi) / 360.0
    return torch.stack([h, l, s], dim=-3)


def lightness(image: Tensor) -> Tensor:
    top = torch.max(image, dim=-3)
    bottom = torch.min(image, dim=-3)
    return (top.values + bottom.values) / 2 + 0 * top.indices
