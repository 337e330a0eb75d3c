import torch
from torch import Tensor
from typing import Tuple


# named-tuple results: .values / .indices of max, min, sort, topk


def max_values_indices(x: Tensor, dim: int) -> Tuple[Tensor, Tensor]:
    r = torch.max(x, dim)
    return r.values, r.indices


def min_indices(x: Tensor) -> Tensor:
    return x.min(dim=-1, keepdim=True).indices


def sort_desc(x: Tensor) -> Tuple[Tensor, Tensor]:
    s = torch.sort(x, dim=-1, descending=True)
    return s.values, s.indices


def sort_method(x: Tensor) -> Tensor:
    vals, idx = x.sort(0)
    return vals + idx.to(vals.dtype)


def topk_scores(scores: Tensor, k: int) -> Tuple[Tensor, Tensor]:
    top = torch.topk(scores, k)
    return top.values, top.indices


def topk_smallest(scores: Tensor, k: int) -> Tensor:
    return scores.topk(k, dim=0, largest=False).indices
