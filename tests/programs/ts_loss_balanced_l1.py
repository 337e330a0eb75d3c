import math
import torch
from torch import Tensor


# mmdetection style balanced L1 loss: asserts on arguments, early return on empty targets


def balanced_l1_loss(pred: Tensor, target: Tensor, beta: float = 1.0, alpha: float = 0.5, gamma: float = 1.5,
                     reduction: str = "mean") -> Tensor:
    assert beta > 0, "beta must be positive"
    if target.numel() == 0:
        return pred.sum() * 0
    assert pred.size() == target.size(), "pred and target must have the same size"
    diff = torch.abs(pred - target)
    b = math.exp(gamma / alpha) - 1
    loss = torch.where(
        diff < beta,
        alpha / b * (b * diff + 1) * torch.log(b * diff / beta + 1) - alpha * diff,
        gamma * diff + gamma / b - alpha * beta,
    )
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def balanced_none(pred: Tensor, target: Tensor, beta: float) -> Tensor:
    return balanced_l1_loss(pred, target, beta, reduction="none")


def balanced_sum(pred: Tensor, target: Tensor) -> Tensor:
    return balanced_l1_loss(pred, target, reduction="sum")
