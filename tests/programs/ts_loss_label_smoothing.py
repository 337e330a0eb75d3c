import torch
import torch.nn.functional as F
from torch import Tensor


# label-smoothed cross entropy with ignore_index and a reduction name


def label_smoothed_nll(logits: Tensor, target: Tensor, epsilon: float, ignore_index: int = -100,
                       reduction: str = "mean") -> Tensor:
    lprobs = F.log_softmax(logits, dim=-1)
    pad_mask = target.eq(ignore_index)
    safe_target = target.clamp(min=0)
    nll = -lprobs.gather(dim=-1, index=safe_target.unsqueeze(-1)).squeeze(-1)
    smooth = -lprobs.sum(dim=-1)
    nll = nll.masked_fill(pad_mask, 0.0)
    smooth = smooth.masked_fill(pad_mask, 0.0)
    eps_i = epsilon / lprobs.size(-1)
    loss = (1.0 - epsilon) * nll + eps_i * smooth
    if reduction == "mean":
        n = (~pad_mask).sum()
        return loss.sum() / n.clamp(min=1)
    elif reduction == "sum":
        return loss.sum()
    return loss


def ls_sum(logits: Tensor, target: Tensor, epsilon: float) -> Tensor:
    return label_smoothed_nll(logits, target, epsilon, reduction="sum")


def ls_none(logits: Tensor, target: Tensor) -> Tensor:
    return label_smoothed_nll(logits, target, 0.1, 0, "none")
