import torch
import torch.nn.functional as F
from torch import Tensor


# kornia.geometry style conversions to and from homogeneous coordinates


def convert_points_from_homogeneous(points: Tensor, eps: float = 1e-8) -> Tensor:
    if not isinstance(points, torch.Tensor):
        raise TypeError(f"Input type is not a Tensor. Got {type(points)}")
    if len(points.shape) < 2:
        raise ValueError(f"Input must be at least a 2D tensor. Got {points.dim()} dims")
    z_vec = points[..., -1:]
    mask = torch.abs(z_vec) > eps
    scale = torch.where(mask, 1.0 / (z_vec + eps), torch.ones_like(z_vec))
    return scale * points[..., :-1]


def convert_points_to_homogeneous(points: Tensor) -> Tensor:
    if not isinstance(points, torch.Tensor):
        raise TypeError(f"Input type is not a Tensor. Got {type(points)}")
    if len(points.shape) < 2:
        raise ValueError(f"Input must be at least a 2D tensor. Got {points.dim()} dims")
    return F.pad(points, [0, 1], "constant", 1.0)


def transform_points(trans: Tensor, points: Tensor) -> Tensor:
    ph = convert_points_to_homogeneous(points)
    out = torch.matmul(trans.unsqueeze(0), ph.unsqueeze(-1)).squeeze(-1)
    return convert_points_from_homogeneous(out)
