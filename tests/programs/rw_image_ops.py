import torch
from torch import Tensor


def normalize_image(img: Tensor, mean: Tensor, std: Tensor) -> Tensor:
    # img: (C, H, W)
    return (img - mean[:, None, None]) / std[:, None, None]


def hflip(img: Tensor) -> Tensor:
    return img.flip(-1)


def rgb_to_grayscale(img: Tensor) -> Tensor:
    r = img[0]
    g = img[1]
    b = img[2]
    return (0.2989 * r + 0.587 * g + 0.114 * b).unsqueeze(0)


def box_blur(img: Tensor) -> Tensor:
    # 3x3 mean filter with zero padding, by shifted slices
    h = img.size(-2)
    w = img.size(-1)
    padded = torch.zeros(img.size(0), h + 2, w + 2, dtype=img.dtype)
    padded[:, 1:h + 1, 1:w + 1] = img
    acc = torch.zeros_like(img)
    for dy in range(3):
        for dx in range(3):
            acc = acc + padded[:, dy:dy + h, dx:dx + w]
    return acc / 9.0


def adjust_contrast(img: Tensor, factor: float) -> Tensor:
    mean = rgb_to_grayscale(img).mean()
    return (factor * img + (1.0 - factor) * mean).clamp(0.0, 1.0)
