import torch
from torch import Tensor


# torchvision.ops style generalized IoU, with the scripting/tracing guards real code has


def _area(b: Tensor) -> Tensor:
    return (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])


def generalized_box_iou(boxes1: Tensor, boxes2: Tensor) -> Tensor:
    if not torch.jit.is_scripting() and not torch.jit.is_tracing():
        # eager-only bookkeeping (API usage logging in the real library)
        pass
    if not isinstance(boxes1, torch.Tensor):
        raise TypeError(f"boxes1 should be a Tensor, got {type(boxes1)}")
    a1 = _area(boxes1)
    a2 = _area(boxes2)
    lt = torch.max(boxes1[:, None, :2], boxes2[:, :2])
    rb = torch.min(boxes1[:, None, 2:], boxes2[:, 2:])
    wh = (rb - lt).clamp(min=0)
    inter = wh[:, :, 0] * wh[:, :, 1]
    union = a1[:, None] + a2 - inter
    iou = inter / union
    lti = torch.min(boxes1[:, None, :2], boxes2[:, :2])
    rbi = torch.max(boxes1[:, None, 2:], boxes2[:, 2:])
    whi = (rbi - lti).clamp(min=0)
    areai = whi[:, :, 0] * whi[:, :, 1]
    return iou - (areai - union) / areai


def diagonal_giou(boxes: Tensor) -> Tensor:
    g = generalized_box_iou(boxes, boxes)
    idx = torch.arange(g.size(0), device=g.device)
    return g[idx, idx]
