import torch
from torch import Tensor


# Hugging Face transformers style (DeBERTa-like) log-bucketed relative positions


def log_bucket_position(relative_pos: Tensor, bucket_size: int, max_position: int) -> Tensor:
    sign = torch.sign(relative_pos)
    mid = bucket_size // 2
    abs_pos = torch.where(
        (relative_pos < mid) & (relative_pos > -mid),
        torch.tensor(mid - 1).type_as(relative_pos),
        torch.abs(relative_pos),
    )
    log_pos = torch.ceil(torch.log(abs_pos / mid) / torch.log(torch.tensor((max_position - 1) / mid)) * (mid - 1)) + mid
    return torch.where(abs_pos <= mid, relative_pos.type_as(log_pos), log_pos * sign)


def build_relative_position(query_size: int, key_size: int, bucket_size: int = -1, max_position: int = -1) -> Tensor:
    q_ids = torch.arange(0, query_size)
    k_ids = torch.arange(0, key_size)
    rel_pos_ids = q_ids[:, None] - k_ids[None, :]
    if bucket_size > 0 and max_position > 0:
        rel_pos_ids = log_bucket_position(rel_pos_ids, bucket_size, max_position)
    rel_pos_ids = rel_pos_ids.to(torch.long)
    rel_pos_ids = rel_pos_ids[:query_size, :]
    return rel_pos_ids.unsqueeze(0)


def dynamic_expand(pos: Tensor, query: Tensor, relative_pos: Tensor) -> Tensor:
    return pos.expand([query.size(0), query.size(1), query.size(2), relative_pos.size(-1)])
