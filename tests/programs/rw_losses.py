import torch
import torch.nn.functional as F
from torch import Tensor


def sigmoid_focal_loss(inputs: Tensor, targets: Tensor, alpha: float = 0.25, gamma: float = 2.0) -> Tensor:
    p = torch.sigmoid(inputs)
    ce = F.softplus(-inputs) * targets + F.softplus(inputs) * (1.0 - targets)
    p_t = p * targets + (1 - p) * (1 - targets)
    loss = ce * ((1 - p_t) ** gamma)
    if alpha >= 0:
        alpha_t = alpha * targets + (1 - alpha) * (1 - targets)
        loss = alpha_t * loss
    return loss.mean()


def dice_loss(inputs: Tensor, targets: Tensor) -> Tensor:
    p = inputs.sigmoid().flatten(1)
    t = targets.flatten(1)
    numerator = 2 * (p * t).sum(1)
    denominator = p.sum(-1) + t.sum(-1)
    return (1 - (numerator + 1) / (denominator + 1)).sum() / inputs.size(0)


def label_smoothing_ce(logits: Tensor, target: Tensor, eps: float) -> Tensor:
    logp = torch.log_softmax(logits, dim=-1)
    nll = -logp.gather(1, target.unsqueeze(1)).squeeze(1)
    smooth = -logp.mean(dim=-1)
    return ((1.0 - eps) * nll + eps * smooth).mean()
