import torch
from torch import Tensor
from typing import Tuple


# torchvision.ops style: clipping to the image and dropping small boxes


def clip_boxes_to_image(boxes: Tensor, size: Tuple[int, int]) -> Tensor:
    dim = boxes.dim()
    boxes_x = boxes[..., 0::2]
    boxes_y = boxes[..., 1::2]
    height, width = size
    if torch.jit.is_tracing():
        boxes_x = torch.max(boxes_x, torch.tensor(0, dtype=boxes.dtype, device=boxes.device))
        boxes_x = torch.min(boxes_x, torch.tensor(width, dtype=boxes.dtype, device=boxes.device))
        boxes_y = torch.max(boxes_y, torch.tensor(0, dtype=boxes.dtype, device=boxes.device))
        boxes_y = torch.min(boxes_y, torch.tensor(height, dtype=boxes.dtype, device=boxes.device))
    else:
        boxes_x = boxes_x.clamp(min=0, max=width)
        boxes_y = boxes_y.clamp(min=0, max=height)
    clipped = torch.stack((boxes_x, boxes_y), dim=dim)
    return clipped.reshape(boxes.shape)


def remove_small_boxes(boxes: Tensor, min_size: float) -> Tensor:
    ws, hs = boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]
    keep = (ws >= min_size) & (hs >= min_size)
    keep = torch.where(keep)[0]
    return keep


def clip_and_filter(boxes: Tensor, h: int, w: int, min_size: float) -> Tensor:
    clipped = clip_boxes_to_image(boxes, (h, w))
    keep = remove_small_boxes(clipped, min_size)
    return clipped[keep]
