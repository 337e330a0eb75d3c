import torch
from torch import Tensor
from typing import List


# torchvision.ops style batched NMS by coordinate offsets, greedy NMS with sort().indices


def box_iou_one(box: Tensor, boxes: Tensor) -> Tensor:
    x1 = torch.max(box[0], boxes[:, 0])
    y1 = torch.max(box[1], boxes[:, 1])
    x2 = torch.min(box[2], boxes[:, 2])
    y2 = torch.min(box[3], boxes[:, 3])
    inter = (x2 - x1).clamp(min=0) * (y2 - y1).clamp(min=0)
    a = (box[2] - box[0]) * (box[3] - box[1])
    b = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    return inter / (a + b - inter)


def nms(boxes: Tensor, scores: Tensor, iou_threshold: float) -> Tensor:
    order = torch.sort(scores, descending=True).indices
    suppressed = torch.zeros(scores.size(0), dtype=torch.bool, device=scores.device)
    keep = torch.jit.annotate(List[int], [])
    for k in range(order.size(0)):
        i = int(order[k])
        if bool(suppressed[i]):
            continue
        keep.append(i)
        ious = box_iou_one(boxes[i], boxes)
        suppressed = suppressed | (ious > iou_threshold)
    return torch.tensor(keep, dtype=torch.int64, device=boxes.device)


def batched_nms(boxes: Tensor, scores: Tensor, idxs: Tensor, iou_threshold: float) -> Tensor:
    if boxes.numel() == 0:
        return torch.empty((0,), dtype=torch.int64, device=boxes.device)
    max_coordinate = boxes.max()
    offsets = idxs.to(boxes) * (max_coordinate + torch.tensor(1).to(boxes))
    boxes_for_nms = boxes + offsets[:, None]
    return nms(boxes_for_nms, scores, iou_threshold)
