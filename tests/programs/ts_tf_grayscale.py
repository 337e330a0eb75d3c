import torch
from torch import Tensor


# torchvision transforms (tensor backend) style: grayscale by channel unbind, dtype kept


def _assert_image(img: Tensor) -> None:
    if not isinstance(img, torch.Tensor):
        raise TypeError("Tensor is not a torch image.")
    if img.ndim < 3:
        raise TypeError(f"Input image tensor should have at least 3 dimensions, but found {img.ndim}")


def rgb_to_grayscale(img: Tensor, num_output_channels: int = 1) -> Tensor:
    _assert_image(img)
    if num_output_channels not in (1, 3):
        raise ValueError("num_output_channels should be either 1 or 3")
    if img.shape[-3] == 3:
        r, g, b = img.unbind(dim=-3)
        gray = (0.2989 * r + 0.587 * g + 0.114 * b).to(img.dtype)
        gray = gray.unsqueeze(dim=-3)
    else:
        gray = img.clone()
    if num_output_channels == 3:
        return gray.expand(img.shape)
    return gray
