import torch
import torch.nn.functional as F
from torch import Tensor


# torchvision.ops style sigmoid focal loss: BCE with logits, reduction by name


def sigmoid_focal_loss(inputs: Tensor, targets: Tensor, alpha: float = 0.25, gamma: float = 2,
                       reduction: str = "none") -> Tensor:
    p = torch.sigmoid(inputs)
    ce_loss = F.binary_cross_entropy_with_logits(inputs, targets, reduction="none")
    p_t = p * targets + (1 - p) * (1 - targets)
    loss = ce_loss * ((1 - p_t) ** gamma)
    if alpha >= 0:
        alpha_t = alpha * targets + (1 - alpha) * (1 - targets)
        loss = alpha_t * loss
    if reduction == "none":
        pass
    elif reduction == "mean":
        loss = loss.mean()
    elif reduction == "sum":
        loss = loss.sum()
    else:
        raise ValueError(f"Invalid Value for arg 'reduction': '{reduction}'")
    return loss


def focal_mean(x: Tensor, t: Tensor) -> Tensor:
    return sigmoid_focal_loss(x, t, reduction="mean")


def focal_sum_no_alpha(x: Tensor, t: Tensor) -> Tensor:
    return sigmoid_focal_loss(x, t, -1.0, 1.5, "sum")


def focal_bad(x: Tensor, t: Tensor) -> Tensor:
    return sigmoid_focal_loss(x, t, reduction="batchmean")
