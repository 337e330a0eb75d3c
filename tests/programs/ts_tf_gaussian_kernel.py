import torch
from torch import Tensor
from typing import List


# torchvision transforms style gaussian kernels: linspace with dtype=/device= of an input


def gaussian_kernel1d(kernel_size: int, sigma: float, dtype: torch.dtype, device: torch.device) -> Tensor:
    ksize_half = (kernel_size - 1) * 0.5
    x = torch.linspace(-ksize_half, ksize_half, steps=kernel_size, dtype=dtype, device=device)
    pdf = torch.exp(-0.5 * (x / sigma).pow(2))
    return pdf / pdf.sum()


def gaussian_kernel2d(kernel_size: List[int], sigma: List[float], like: Tensor) -> Tensor:
    kx = gaussian_kernel1d(kernel_size[0], sigma[0], like.dtype, like.device)
    ky = gaussian_kernel1d(kernel_size[1], sigma[1], like.dtype, like.device)
    return ky[:, None] * kx[None, :]


def blur_rows(img: Tensor, kernel_size: int, sigma: float) -> Tensor:
    k = gaussian_kernel1d(kernel_size, sigma, img.dtype, device=torch.device("cpu"))
    n = img.shape[-1] - kernel_size + 1
    out = torch.zeros(img.shape[:-1] + (n,), dtype=img.dtype, device=img.device)
    for i in range(kernel_size):
        out += k[i] * img[..., i : i + n]
    return out
