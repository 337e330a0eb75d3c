import torch
from torch import Tensor


# torchvision.ops style masks_to_boxes: one-argument torch.where, device= arguments


def masks_to_boxes(masks: Tensor) -> Tensor:
    if masks.numel() == 0:
        return torch.zeros((0, 4), device=masks.device, dtype=torch.float)
    n = masks.shape[0]
    out = torch.zeros((n, 4), device=masks.device, dtype=torch.float)
    for index, mask in enumerate(masks):
        y, x = torch.where(mask != 0)
        out[index, 0] = torch.min(x)
        out[index, 1] = torch.min(y)
        out[index, 2] = torch.max(x)
        out[index, 3] = torch.max(y)
    return out


def mask_centroids(masks: Tensor) -> Tensor:
    rows = []
    for m in masks.unbind(0):
        nz = torch.nonzero(m)
        rows.append(nz.to(torch.float32).mean(0))
    return torch.stack(rows)
