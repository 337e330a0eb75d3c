import math
import torch
from torch import Tensor


# torchvision.ops style complete-IoU loss: atan, torch.no_grad() around the trade-off weight


def ciou_loss(boxes1: Tensor, boxes2: Tensor, reduction: str = "none", eps: float = 1e-7) -> Tensor:
    x1, y1, x2, y2 = boxes1.unbind(dim=-1)
    x1g, y1g, x2g, y2g = boxes2.unbind(dim=-1)
    iw = (torch.min(x2, x2g) - torch.max(x1, x1g)).clamp(min=0)
    ih = (torch.min(y2, y2g) - torch.max(y1, y1g)).clamp(min=0)
    inter = iw * ih
    union = (x2 - x1) * (y2 - y1) + (x2g - x1g) * (y2g - y1g) - inter
    iou = inter / (union + eps)
    cw = torch.max(x2, x2g) - torch.min(x1, x1g)
    ch = torch.max(y2, y2g) - torch.min(y1, y1g)
    diag = cw ** 2 + ch ** 2 + eps
    dist = ((x1 + x2 - x1g - x2g) / 2) ** 2 + ((y1 + y2 - y1g - y2g) / 2) ** 2
    w_pred = x2 - x1
    h_pred = y2 - y1
    w_gt = x2g - x1g
    h_gt = y2g - y1g
    v = (4 / (math.pi ** 2)) * torch.pow((torch.atan(w_gt / h_gt) - torch.atan(w_pred / h_pred)), 2)
    with torch.no_grad():
        alpha = v / (1 - iou + v + eps)
    loss = 1 - iou + dist / diag + alpha * v
    if reduction == "mean":
        loss = loss.mean() if loss.numel() > 0 else 0.0 * loss.sum()
    elif reduction == "sum":
        loss = loss.sum()
    return loss


def ciou_mean(b1: Tensor, b2: Tensor) -> Tensor:
    return ciou_loss(b1, b2, "mean")


def ciou_sum(b1: Tensor, b2: Tensor) -> Tensor:
    return ciou_loss(b1, b2, reduction="sum", eps=1e-6)
