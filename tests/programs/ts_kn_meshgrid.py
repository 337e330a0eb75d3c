import torch
from torch import Tensor


# kornia.utils style meshgrid creation: linspace (one step included), torch.meshgrid, device/dtype of an input


def create_meshgrid(height: int, width: int, normalized_coordinates: bool, device: torch.device,
                    dtype: torch.dtype) -> Tensor:
    xs = torch.linspace(0, width - 1, width, device=device, dtype=dtype)
    ys = torch.linspace(0, height - 1, height, device=device, dtype=dtype)
    if normalized_coordinates:
        xs = (xs / (width - 1) - 0.5) * 2
        ys = (ys / (height - 1) - 0.5) * 2
    base_grid = torch.stack(torch.meshgrid([xs, ys], indexing="ij"), dim=-1)
    return base_grid.permute(1, 0, 2).unsqueeze(0)


def meshgrid_like(x: Tensor, normalized: bool) -> Tensor:
    return create_meshgrid(x.shape[-2], x.shape[-1], normalized, x.device, x.dtype)


def meshgrid_cpu(h: int, w: int) -> Tensor:
    return create_meshgrid(h, w, False, torch.device("cpu"), torch.float64)
