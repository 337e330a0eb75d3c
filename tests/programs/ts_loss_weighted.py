import torch
from torch import Tensor
from typing import Optional


# mmdetection style weighted loss reduction with avg_factor and finfo eps


def reduce_loss(loss: Tensor, reduction: str) -> Tensor:
    if reduction == "none":
        return loss
    elif reduction == "mean":
        return loss.mean()
    elif reduction == "sum":
        return loss.sum()
    raise ValueError(f"reduction must be 'none', 'mean' or 'sum', got '{reduction}'")


def weight_reduce_loss(loss: Tensor, weight: Optional[Tensor] = None, reduction: str = "mean",
                       avg_factor: Optional[float] = None) -> Tensor:
    if weight is not None:
        loss = loss * weight
    if avg_factor is None:
        loss = reduce_loss(loss, reduction)
    else:
        if reduction == "mean":
            eps = 1.1920928955078125e-07
            loss = loss.sum() / (avg_factor + eps)
        elif reduction != "none":
            raise ValueError('avg_factor can not be used with reduction="sum"')
    return loss


def l1_loss(pred: Tensor, target: Tensor, weight: Optional[Tensor] = None, avg_factor: Optional[float] = None) -> Tensor:
    if target.numel() == 0:
        return pred.sum() * 0
    assert pred.size() == target.size()
    loss = torch.abs(pred - target)
    return weight_reduce_loss(loss, weight, "mean", avg_factor)


def l1_none(pred: Tensor, target: Tensor, avg_factor: Optional[float]) -> Tensor:
    return weight_reduce_loss(torch.abs(pred - target), None, "none", avg_factor)


def l1_sum_avg(pred: Tensor, target: Tensor) -> Tensor:
    return weight_reduce_loss(torch.abs(pred - target), None, "sum", 2.0)


def l1_sum(pred: Tensor, target: Tensor) -> Tensor:
    return weight_reduce_loss(torch.abs(pred - target), None, "sum")


def l1_bad(pred: Tensor, target: Tensor) -> Tensor:
    return weight_reduce_loss(torch.abs(pred - target), None, "max")
