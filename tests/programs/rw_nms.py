import torch
from torch import Tensor
from typing import List


def iou_one(box: Tensor, boxes: Tensor) -> Tensor:
    x1 = torch.maximum(boxes[:, 0], box[0])
    y1 = torch.maximum(boxes[:, 1], box[1])
    x2 = torch.minimum(boxes[:, 2], box[2])
    y2 = torch.minimum(boxes[:, 3], box[3])
    inter = (x2 - x1).clamp(min=0.0) * (y2 - y1).clamp(min=0.0)
    a = (box[2] - box[0]) * (box[3] - box[1])
    b = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    return inter / (a + b - inter)


def nms(boxes: Tensor, scores: Tensor, iou_threshold: float) -> List[int]:
    # greedy NMS: data-dependent number of iterations
    keep: List[int] = []
    s = scores.clone()
    while bool((s > -1.0).any()):
        i = int(s.argmax())
        keep.append(i)
        ious = iou_one(boxes[i], boxes)
        s[ious > iou_threshold] = -2.0
        s[i] = -2.0
    return keep
