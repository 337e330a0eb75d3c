import torch
from torch import Tensor
from typing import Tuple


def accuracy(logits: Tensor, target: Tensor) -> float:
    pred = logits.argmax(dim=1)
    return float((pred == target).float().mean())


def confusion_matrix(pred: Tensor, target: Tensor, num_classes: int) -> Tensor:
    cm = torch.zeros(num_classes, num_classes, dtype=torch.int64)
    for i in range(pred.size(0)):
        t = int(target[i])
        p = int(pred[i])
        cm[t, p] += 1
    return cm


def precision_recall(cm: Tensor) -> Tuple[Tensor, Tensor]:
    tp = cm.flatten()[:: cm.size(0) + 1].float()
    precision = tp / cm.sum(0).float().clamp(min=1.0)
    recall = tp / cm.sum(1).float().clamp(min=1.0)
    return precision, recall
