import torch
from torch import Tensor
from typing import Tuple


def encode(reference: Tensor, proposals: Tensor, weights: Tuple[float, float, float, float]) -> Tensor:
    wx, wy, ww, wh = weights
    ex_w = proposals[:, 2] - proposals[:, 0]
    ex_h = proposals[:, 3] - proposals[:, 1]
    ex_cx = proposals[:, 0] + 0.5 * ex_w
    ex_cy = proposals[:, 1] + 0.5 * ex_h
    gt_w = reference[:, 2] - reference[:, 0]
    gt_h = reference[:, 3] - reference[:, 1]
    gt_cx = reference[:, 0] + 0.5 * gt_w
    gt_cy = reference[:, 1] + 0.5 * gt_h
    dx = wx * (gt_cx - ex_cx) / ex_w
    dy = wy * (gt_cy - ex_cy) / ex_h
    dw = ww * torch.log(gt_w / ex_w)
    dh = wh * torch.log(gt_h / ex_h)
    return torch.cat((dx.unsqueeze(1), dy.unsqueeze(1), dw.unsqueeze(1), dh.unsqueeze(1)), dim=1)


def decode(codes: Tensor, boxes: Tensor, clip: float = 4.135166556742356) -> Tensor:
    widths = boxes[:, 2] - boxes[:, 0]
    heights = boxes[:, 3] - boxes[:, 1]
    ctr_x = boxes[:, 0] + 0.5 * widths
    ctr_y = boxes[:, 1] + 0.5 * heights
    dw = torch.clamp(codes[:, 2], max=clip)
    dh = torch.clamp(codes[:, 3], max=clip)
    pred_ctr_x = codes[:, 0] * widths + ctr_x
    pred_ctr_y = codes[:, 1] * heights + ctr_y
    pred_w = torch.exp(dw) * widths
    pred_h = torch.exp(dh) * heights
    return torch.stack([pred_ctr_x - 0.5 * pred_w, pred_ctr_y - 0.5 * pred_h,
                        pred_ctr_x + 0.5 * pred_w, pred_ctr_y + 0.5 * pred_h], dim=1)
