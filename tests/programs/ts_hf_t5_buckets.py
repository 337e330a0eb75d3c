import math
import torch
from torch import Tensor


# Hugging Face transformers style (T5) relative position buckets


def relative_position_bucket(relative_position: Tensor, bidirectional: bool = True, num_buckets: int = 32,
                             max_distance: int = 128) -> Tensor:
    relative_buckets = torch.zeros_like(relative_position)
    if bidirectional:
        num_buckets = num_buckets // 2
        relative_buckets += (relative_position > 0).to(torch.long) * num_buckets
        relative_position = torch.abs(relative_position)
    else:
        relative_position = -torch.min(relative_position, torch.zeros_like(relative_position))
    max_exact = num_buckets // 2
    is_small = relative_position < max_exact
    if_large = max_exact + (
        torch.log(relative_position.float() / max_exact) / math.log(max_distance / max_exact) * (num_buckets - max_exact)
    ).to(torch.long)
    if_large = torch.min(if_large, torch.full_like(if_large, num_buckets - 1))
    relative_buckets += torch.where(is_small, relative_position, if_large)
    return relative_buckets


def bucket_table(qlen: int, klen: int, bidirectional: bool) -> Tensor:
    context = torch.arange(qlen, dtype=torch.long)[:, None]
    memory = torch.arange(klen, dtype=torch.long)[None, :]
    return relative_position_bucket(memory - context, bidirectional, 8, 20)
