import torch
from torch import Tensor


# fvcore style focal loss star variant


def sigmoid_focal_loss_star(inputs: Tensor, targets: Tensor, alpha: float = -1, gamma: float = 1,
                            reduction: str = "none") -> Tensor:
    inputs = inputs.float()
    targets = targets.float()
    shifted_inputs = gamma * (inputs * (2 * targets - 1))
    loss = -torch.log(torch.sigmoid(shifted_inputs)) / gamma
    if alpha >= 0:
        alpha_t = alpha * targets + (1 - alpha) * (1 - targets)
        loss *= alpha_t
    if reduction == "mean":
        loss = loss.mean()
    elif reduction == "sum":
        loss = loss.sum()
    return loss


def star_mean(x: Tensor, t: Tensor) -> Tensor:
    return sigmoid_focal_loss_star(x, t, 0.25, 2.0, "mean")


def star_sum(x: Tensor, t: Tensor) -> Tensor:
    return sigmoid_focal_loss_star(x, t, reduction="sum")
