import torch
from torch import Tensor


# DETR / detectron style dice loss on mask logits


def dice_loss(inputs: Tensor, targets: Tensor, num_masks: float, reduction: str = "sum") -> Tensor:
    inputs = inputs.sigmoid()
    inputs = inputs.flatten(1)
    targets = targets.flatten(1).to(inputs.dtype)
    numerator = 2 * (inputs * targets).sum(1)
    denominator = inputs.sum(-1) + targets.sum(-1)
    loss = 1 - (numerator + 1) / (denominator + 1)
    if reduction == "none":
        return loss
    return loss.sum() / num_masks


def dice_none(inputs: Tensor, targets: Tensor) -> Tensor:
    return dice_loss(inputs, targets, 1.0, reduction="none")
