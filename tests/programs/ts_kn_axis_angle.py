import torch
from torch import Tensor


# kornia.geometry style axis-angle -> rotation matrix with a small-angle Taylor fallback


def _rodrigues(angle_axis: Tensor, theta2: Tensor, eps: float = 1e-6) -> Tensor:
    theta = torch.sqrt(theta2)
    wxyz = angle_axis / (theta + eps)
    wx, wy, wz = torch.chunk(wxyz, 3, dim=1)
    cos_theta = torch.cos(theta)
    sin_theta = torch.sin(theta)
    k_one = 1.0
    r00 = cos_theta + wx * wx * (k_one - cos_theta)
    r10 = wz * sin_theta + wx * wy * (k_one - cos_theta)
    r20 = -wy * sin_theta + wx * wz * (k_one - cos_theta)
    r01 = wx * wy * (k_one - cos_theta) - wz * sin_theta
    r11 = cos_theta + wy * wy * (k_one - cos_theta)
    r21 = wx * sin_theta + wy * wz * (k_one - cos_theta)
    r02 = wy * sin_theta + wx * wz * (k_one - cos_theta)
    r12 = -wx * sin_theta + wy * wz * (k_one - cos_theta)
    r22 = cos_theta + wz * wz * (k_one - cos_theta)
    return torch.cat([r00, r01, r02, r10, r11, r12, r20, r21, r22], dim=1).view(-1, 3, 3)


def _taylor(angle_axis: Tensor) -> Tensor:
    rx, ry, rz = torch.chunk(angle_axis, 3, dim=1)
    k_one = torch.ones_like(rx)
    return torch.cat([k_one, -rz, ry, rz, k_one, -rx, -ry, rx, k_one], dim=1).view(-1, 3, 3)


def axis_angle_to_rotation_matrix(axis_angle: Tensor) -> Tensor:
    if not isinstance(axis_angle, torch.Tensor):
        raise TypeError(f"Input type is not a Tensor. Got {type(axis_angle)}")
    if not axis_angle.shape[-1] == 3:
        raise ValueError(f"Input size must be a (*, 3) tensor. Got {axis_angle.dim()} dims")
    aa = axis_angle.unsqueeze(1)
    theta2 = torch.matmul(aa, aa.transpose(1, 2)).squeeze(1)
    normal = _rodrigues(axis_angle, theta2)
    taylor = _taylor(axis_angle)
    eps = 1e-6
    mask = (theta2 > eps).view(-1, 1, 1).to(theta2.dtype)
    return mask * normal + (1 - mask) * taylor
