import torch
from torch import Tensor


# fvcore style smooth L1 loss with `reduction: str`


def smooth_l1_loss(input: Tensor, target: Tensor, beta: float, reduction: str = "none") -> Tensor:
    if beta < 1e-5:
        loss = torch.abs(input - target)
    else:
        n = torch.abs(input - target)
        cond = n < beta
        loss = torch.where(cond, 0.5 * n ** 2 / beta, n - 0.5 * beta)
    if reduction == "mean":
        loss = loss.mean() if loss.numel() > 0 else 0.0 * loss.sum()
    elif reduction == "sum":
        loss = loss.sum()
    return loss


def smooth_l1_mean(input: Tensor, target: Tensor, beta: float) -> Tensor:
    return smooth_l1_loss(input, target, beta, "mean")


def smooth_l1_sum(input: Tensor, target: Tensor, beta: float) -> Tensor:
    return smooth_l1_loss(input, target, beta, reduction="sum")
