import torch
from torch import Tensor
from typing import List


def selects(x: Tensor, idx: Tensor) -> List[Tensor]:
    return [torch.index_select(x, 0, idx), x.index_select(1, idx), torch.gather(x, 1, idx.view(1, -1).expand(x.size(0), -1)),
            x.gather(0, idx.view(-1, 1).expand(-1, x.size(1)))]


def masks(x: Tensor) -> List[Tensor]:
    m = x > 0
    return [x[m], x.masked_fill(m, 0.0), torch.masked_fill(x, ~m, -1.0), x[x.abs() < 0.5], torch.where(m, x, x * 0.1)]


def bad_index(x: Tensor, idx: Tensor) -> Tensor:
    return x.index_select(0, idx)


def gather_rows(logits: Tensor, targets: Tensor) -> Tensor:
    # per-row pick, the core of a cross-entropy loss
    logp = torch.log_softmax(logits, dim=1)
    return -logp.gather(1, targets.unsqueeze(1)).squeeze(1).mean()
