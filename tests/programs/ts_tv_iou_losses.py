import torch
from torch import Tensor
from typing import Tuple


# torchvision.ops style IoU-family losses with `reduction: str`


def _upcast_non_float(t: Tensor) -> Tensor:
    if t.dtype not in (torch.float32, torch.float64):
        return t.float()
    return t


def _inter_union(boxes1: Tensor, boxes2: Tensor) -> Tuple[Tensor, Tensor]:
    x1, y1, x2, y2 = boxes1.unbind(dim=-1)
    x1g, y1g, x2g, y2g = boxes2.unbind(dim=-1)
    xkis1 = torch.max(x1, x1g)
    ykis1 = torch.max(y1, y1g)
    xkis2 = torch.min(x2, x2g)
    ykis2 = torch.min(y2, y2g)
    intsct = torch.zeros_like(x1)
    mask = (ykis2 > ykis1) & (xkis2 > xkis1)
    intsct[mask] = (xkis2[mask] - xkis1[mask]) * (ykis2[mask] - ykis1[mask])
    union = (x2 - x1) * (y2 - y1) + (x2g - x1g) * (y2g - y1g) - intsct
    return intsct, union


def _reduce(loss: Tensor, reduction: str) -> Tensor:
    if reduction == "none":
        pass
    elif reduction == "mean":
        loss = loss.mean() if loss.numel() > 0 else 0.0 * loss.sum()
    elif reduction == "sum":
        loss = loss.sum()
    else:
        raise ValueError(
            f"Invalid Value for arg 'reduction': '{reduction} \n Supported reduction modes: 'none', 'mean', 'sum'"
        )
    return loss


def giou_loss(boxes1: Tensor, boxes2: Tensor, reduction: str = "none", eps: float = 1e-7) -> Tensor:
    boxes1 = _upcast_non_float(boxes1)
    boxes2 = _upcast_non_float(boxes2)
    intsct, union = _inter_union(boxes1, boxes2)
    iou = intsct / (union + eps)
    x1, y1, x2, y2 = boxes1.unbind(dim=-1)
    x1g, y1g, x2g, y2g = boxes2.unbind(dim=-1)
    xc1 = torch.min(x1, x1g)
    yc1 = torch.min(y1, y1g)
    xc2 = torch.max(x2, x2g)
    yc2 = torch.max(y2, y2g)
    area_c = (xc2 - xc1) * (yc2 - yc1)
    miou = iou - ((area_c - union) / (area_c + eps))
    return _reduce(1 - miou, reduction)


def diou_loss(boxes1: Tensor, boxes2: Tensor, reduction: str = "none", eps: float = 1e-7) -> Tensor:
    boxes1 = _upcast_non_float(boxes1)
    boxes2 = _upcast_non_float(boxes2)
    intsct, union = _inter_union(boxes1, boxes2)
    iou = intsct / (union + eps)
    x1, y1, x2, y2 = boxes1.unbind(dim=-1)
    x1g, y1g, x2g, y2g = boxes2.unbind(dim=-1)
    xc1 = torch.min(x1, x1g)
    yc1 = torch.min(y1, y1g)
    xc2 = torch.max(x2, x2g)
    yc2 = torch.max(y2, y2g)
    diag = ((xc2 - xc1) ** 2) + ((yc2 - yc1) ** 2) + eps
    cx = (x1 + x2) / 2
    cy = (y1 + y2) / 2
    cxg = (x1g + x2g) / 2
    cyg = (y1g + y2g) / 2
    dist = ((cx - cxg) ** 2) + ((cy - cyg) ** 2)
    return _reduce(1 - iou + dist / diag, reduction)


def giou_mean(b1: Tensor, b2: Tensor) -> Tensor:
    return giou_loss(b1, b2, reduction="mean")


def giou_sum(b1: Tensor, b2: Tensor) -> Tensor:
    return giou_loss(b1, b2, "sum")


def diou_mean(b1: Tensor, b2: Tensor) -> Tensor:
    return diou_loss(b1, b2, reduction="mean")


def diou_bad(b1: Tensor, b2: Tensor) -> Tensor:
    return diou_loss(b1, b2, reduction="avg")
