import torch
from torch import Tensor


# torchvision transforms style RGB <-> HSV: named-tuple max/min, unbind, torch.where


def rgb2hsv(img: Tensor) -> Tensor:
    r, g, b = img.unbind(dim=-3)
    maxc = torch.max(img, dim=-3).values
    minc = torch.min(img, dim=-3).values
    flat = maxc == minc
    delta = maxc - minc
    one = torch.ones_like(maxc)
    sat = delta / torch.where(flat, one, maxc)
    safe_delta = torch.where(flat, one, delta)
    rc = (maxc - r) / safe_delta
    gc = (maxc - g) / safe_delta
    bc = (maxc - b) / safe_delta
    from_r = (maxc == r) * (bc - gc)
    from_g = ((maxc == g) & (maxc != r)) * (2.0 + rc - bc)
    from_b = ((maxc != g) & (maxc != r)) * (4.0 + gc - rc)
    hue = torch.fmod((from_r + from_g + from_b) / 6.0 + 1.0, 1.0)
    return torch.stack((hue, sat, maxc), dim=-3)


def hsv2rgb(img: Tensor) -> Tensor:
    h, s, v = img.unbind(dim=-3)
    i = torch.floor(h * 6.0)
    f = (h * 6.0) - i
    i = i.to(dtype=torch.int32)
    p = torch.clamp((v * (1.0 - s)), 0.0, 1.0)
    q = torch.clamp((v * (1.0 - s * f)), 0.0, 1.0)
    t = torch.clamp((v * (1.0 - s * (1.0 - f))), 0.0, 1.0)
    i = i % 6
    mask = i.unsqueeze(dim=-3) == torch.arange(6, device=i.device).view(-1, 1, 1)
    a1 = torch.stack((v, q, p, p, t, v), dim=-3)
    a2 = torch.stack((t, v, v, q, p, p), dim=-3)
    a3 = torch.stack((p, p, t, v, v, q), dim=-3)
    a4 = torch.stack((a1, a2, a3), dim=-4)
    return torch.einsum("...ijk, ...xijk -> ...xjk", mask.to(dtype=img.dtype), a4)


def roundtrip(img: Tensor) -> Tensor:
    return hsv2rgb(rgb2hsv(img))
