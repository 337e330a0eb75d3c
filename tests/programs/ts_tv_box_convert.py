import torch
from torch import Tensor


# torchvision.ops box format conversions: unbind, str parameters, dispatch on format names


def xyxy_to_cxcywh(boxes: Tensor) -> Tensor:
    x1, y1, x2, y2 = boxes.unbind(-1)
    cx = (x1 + x2) / 2
    cy = (y1 + y2) / 2
    return torch.stack((cx, cy, x2 - x1, y2 - y1), dim=-1)


def cxcywh_to_xyxy(boxes: Tensor) -> Tensor:
    cx, cy, w, h = boxes.unbind(-1)
    half_w = 0.5 * w
    half_h = 0.5 * h
    return torch.stack((cx - half_w, cy - half_h, cx + half_w, cy + half_h), dim=-1)


def xywh_to_xyxy(boxes: Tensor) -> Tensor:
    x, y, w, h = boxes.unbind(-1)
    return torch.stack([x, y, x + w, y + h], dim=-1)


def xyxy_to_xywh(boxes: Tensor) -> Tensor:
    x1, y1, x2, y2 = boxes.unbind(-1)
    return torch.stack([x1, y1, x2 - x1, y2 - y1], dim=-1)


def convert(boxes: Tensor, in_fmt: str, out_fmt: str) -> Tensor:
    allowed = ("xyxy", "xywh", "cxcywh")
    if in_fmt not in allowed or out_fmt not in allowed:
        raise ValueError(f"Unsupported box format: {in_fmt} -> {out_fmt}")
    if in_fmt == out_fmt:
        return boxes.clone()
    if in_fmt != "xyxy" and out_fmt != "xyxy":
        # go through xyxy
        if in_fmt == "xywh":
            boxes = xywh_to_xyxy(boxes)
        else:
            boxes = cxcywh_to_xyxy(boxes)
        in_fmt = "xyxy"
    if in_fmt == "xyxy":
        if out_fmt == "xywh":
            return xyxy_to_xywh(boxes)
        return xyxy_to_cxcywh(boxes)
    if in_fmt == "xywh":
        return xywh_to_xyxy(boxes)
    return cxcywh_to_xyxy(boxes)


def convert_all(boxes: Tensor, which: int) -> Tensor:
    if which == 0:
        return convert(boxes, "xyxy", "cxcywh")
    if which == 1:
        return convert(boxes, "cxcywh", "xyxy")
    if which == 2:
        return convert(boxes, "xywh", "cxcywh")
    if which == 3:
        return convert(boxes, "xyxy", "xyxy")
    if which == 4:
        return convert(boxes, "cxcywh", "xywh")
    if which == 5:
        return convert(boxes, "xyxy", "xywh")
    if which == 6:
        return convert(boxes, "xywh", "xyxy")
    return convert(boxes, "xyxy", "polygon")
