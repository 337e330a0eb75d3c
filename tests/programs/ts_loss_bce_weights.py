import torch
import torch.nn.functional as F
from torch import Tensor
from typing import Optional


# BCE-with-logits losses with element weights and positive-class weights


def bce(logits: Tensor, target: Tensor, weight: Optional[Tensor] = None, pos_weight: Optional[Tensor] = None,
        reduction: str = "mean") -> Tensor:
    return F.binary_cross_entropy_with_logits(logits, target, weight, reduction=reduction, pos_weight=pos_weight)


def bce_none(logits: Tensor, target: Tensor) -> Tensor:
    return bce(logits, target, reduction="none")


def bce_weighted_sum(logits: Tensor, target: Tensor, weight: Tensor, pos_weight: Tensor) -> Tensor:
    return bce(logits, target, weight, pos_weight, "sum")
