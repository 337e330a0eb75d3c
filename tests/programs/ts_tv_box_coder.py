import math
import torch
from torch import Tensor
from typing import Tuple


# torchvision detection box coder: unbind, tuple weights, clamp of log-sizes


BBOX_CLIP = math.log(1000.0 / 16)


def encode(reference: Tensor, proposals: Tensor, weights: Tuple[float, float, float, float]) -> Tensor:
    wx, wy, ww, wh = weights
    px1, py1, px2, py2 = proposals.unbind(1)
    gx1, gy1, gx2, gy2 = reference.unbind(1)
    pw = px2 - px1
    ph = py2 - py1
    pcx = px1 + 0.5 * pw
    pcy = py1 + 0.5 * ph
    gw = gx2 - gx1
    gh = gy2 - gy1
    gcx = gx1 + 0.5 * gw
    gcy = gy1 + 0.5 * gh
    dx = wx * (gcx - pcx) / pw
    dy = wy * (gcy - pcy) / ph
    dw = ww * torch.log(gw / pw)
    dh = wh * torch.log(gh / ph)
    return torch.stack((dx, dy, dw, dh), dim=1)


def decode(codes: Tensor, boxes: Tensor, clip: float = BBOX_CLIP) -> Tensor:
    boxes = boxes.to(codes.dtype)
    widths = boxes[:, 2] - boxes[:, 0]
    heights = boxes[:, 3] - boxes[:, 1]
    ctr_x = boxes[:, 0] + 0.5 * widths
    ctr_y = boxes[:, 1] + 0.5 * heights
    dx, dy, dw, dh = codes.unbind(1)
    dw = torch.clamp(dw, max=clip)
    dh = torch.clamp(dh, max=clip)
    pcx = dx * widths + ctr_x
    pcy = dy * heights + ctr_y
    pw = torch.exp(dw) * widths
    ph = torch.exp(dh) * heights
    c_to_c_h = torch.tensor(0.5, dtype=pcy.dtype, device=ph.device) * ph
    c_to_c_w = torch.tensor(0.5, dtype=pcx.dtype, device=pw.device) * pw
    return torch.stack((pcx - c_to_c_w, pcy - c_to_c_h, pcx + c_to_c_w, pcy + c_to_c_h), dim=1)
