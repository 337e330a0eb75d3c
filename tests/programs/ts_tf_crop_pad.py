import torch
import torch.nn.functional as F
from torch import Tensor
from typing import List


# torchvision transforms style: image size, crop, center crop with constant padding, flips


def get_dimensions(img: Tensor) -> List[int]:
    channels = 1 if img.ndim == 2 else img.shape[-3]
    height, width = img.shape[-2:]
    return [channels, height, width]


def crop(img: Tensor, top: int, left: int, height: int, width: int) -> Tensor:
    _, h, w = get_dimensions(img)
    right = left + width
    bottom = top + height
    if left < 0 or top < 0 or right > w or bottom > h:
        padding = [max(-left, 0), max(right - w, 0), max(-top, 0), max(bottom - h, 0)]
        return F.pad(img[..., max(top, 0) : bottom, max(left, 0) : right], padding, value=0.0)
    return img[..., top:bottom, left:right]


def center_crop(img: Tensor, output_size: List[int]) -> Tensor:
    if len(output_size) == 1:
        output_size = [output_size[0], output_size[0]]
    crop_height, crop_width = output_size
    _, image_height, image_width = get_dimensions(img)
    if crop_width > image_width or crop_height > image_height:
        pad_w = crop_width - image_width if crop_width > image_width else 0
        pad_h = crop_height - image_height if crop_height > image_height else 0
        padding = [pad_w // 2, (pad_w + 1) // 2, pad_h // 2, (pad_h + 1) // 2]
        img = F.pad(img, padding, mode="constant", value=0.0)
        _, image_height, image_width = get_dimensions(img)
        if crop_width == image_width and crop_height == image_height:
            return img
    crop_top = int(round((image_height - crop_height) / 2.0))
    crop_left = int(round((image_width - crop_width) / 2.0))
    return crop(img, crop_top, crop_left, crop_height, crop_width)


def flip_both(img: Tensor, horizontal: bool, vertical: bool) -> Tensor:
    if horizontal:
        img = img.flip(-1)
    if vertical:
        img = img.flip(-2)
    return img
