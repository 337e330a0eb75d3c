import torch
from torch import Tensor
from typing import Tuple


# torchvision.ops style: upcasting by dtype before area/IoU arithmetic


def upcast(t: Tensor) -> Tensor:
    # keep wide float and int types, widen everything else
    if t.is_floating_point():
        return t if t.dtype in (torch.float32, torch.float64) else t.float()
    else:
        return t if t.dtype in (torch.int32, torch.int64) else t.int()


def area(boxes: Tensor) -> Tensor:
    boxes = upcast(boxes)
    return (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])


def inter_union(boxes1: Tensor, boxes2: Tensor) -> Tuple[Tensor, Tensor]:
    a1 = area(boxes1)
    a2 = area(boxes2)
    lt = torch.max(boxes1[:, None, :2], boxes2[:, :2])
    rb = torch.min(boxes1[:, None, 2:], boxes2[:, 2:])
    wh = upcast(rb - lt).clamp(min=0)
    inter = wh[:, :, 0] * wh[:, :, 1]
    return inter, a1[:, None] + a2 - inter


def iou(boxes1: Tensor, boxes2: Tensor) -> Tensor:
    inter, union = inter_union(boxes1, boxes2)
    return inter / union


def upcast_dtype_code(t: Tensor) -> int:
    u = upcast(t)
    if u.dtype == torch.float32:
        return 0
    elif u.dtype == torch.float64:
        return 1
    elif u.dtype == torch.int32:
        return 2
    return 3
