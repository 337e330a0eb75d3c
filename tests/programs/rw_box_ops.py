import torch
from torch import Tensor
from typing import Tuple


# torchvision.ops.boxes style


def box_area(boxes: Tensor) -> Tensor:
    return (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])


def box_inter_union(boxes1: Tensor, boxes2: Tensor) -> Tuple[Tensor, Tensor]:
    area1 = box_area(boxes1)
    area2 = box_area(boxes2)
    lt = torch.max(boxes1[:, None, :2], boxes2[:, :2])
    rb = torch.min(boxes1[:, None, 2:], boxes2[:, 2:])
    wh = (rb - lt).clamp(min=0)
    inter = wh[:, :, 0] * wh[:, :, 1]
    union = area1[:, None] + area2 - inter
    return inter, union


def box_iou(boxes1: Tensor, boxes2: Tensor) -> Tensor:
    inter, union = box_inter_union(boxes1, boxes2)
    return inter / union


def clip_boxes_to_image(boxes: Tensor, size: Tuple[int, int]) -> Tensor:
    height, width = size
    x1 = boxes[:, 0].clamp(min=0, max=width)
    y1 = boxes[:, 1].clamp(min=0, max=height)
    x2 = boxes[:, 2].clamp(min=0, max=width)
    y2 = boxes[:, 3].clamp(min=0, max=height)
    return torch.stack((x1, y1, x2, y2), dim=1)


def box_cxcywh_to_xyxy(x: Tensor) -> Tensor:
    cx = x[..., 0]
    cy = x[..., 1]
    w = x[..., 2]
    h = x[..., 3]
    b = [(cx - 0.5 * w), (cy - 0.5 * h), (cx + 0.5 * w), (cy + 0.5 * h)]
    return torch.stack(b, dim=-1)
