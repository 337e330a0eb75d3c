import torch
from torch import Tensor
from typing import List


# Hugging Face transformers style padding/truncation of id tensors, list(shape) arithmetic


def pad_to_length(ids: Tensor, max_len: int, pad_id: int, left: bool = False) -> Tensor:
    cur = ids.shape[-1]
    if cur >= max_len:
        return ids[..., :max_len]
    new_shape = list(ids.shape[:-1]) + [max_len]
    out = torch.full(new_shape, pad_id, dtype=ids.dtype, device=ids.device)
    if left:
        out[..., max_len - cur :] = ids
    else:
        out[..., :cur] = ids
    return out


def attention_mask_from_ids(ids: Tensor, pad_id: int) -> Tensor:
    return (ids != pad_id).to(dtype=torch.long, device=ids.device)


def batch_lengths(ids: Tensor, pad_id: int) -> List[int]:
    lengths = (ids != pad_id).sum(-1)
    return lengths.tolist()
