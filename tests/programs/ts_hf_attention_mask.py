import torch
from torch import Tensor
from typing import List, Optional


# Hugging Face transformers style attention masks: finfo(dtype).min, dtype parameters


def dtype_min(dtype: torch.dtype) -> float:
    # torch.finfo is not scriptable: the minimum of the float dtypes spelled out
    if dtype == torch.float64:
        return -1.7976931348623157e308
    return -3.4028234663852886e38


def expand_mask(mask: Tensor, dtype: torch.dtype, tgt_len: Optional[int] = None) -> Tensor:
    bsz, src_len = mask.size()
    tgt_len = tgt_len if tgt_len is not None else src_len
    expanded = mask[:, None, None, :].expand(bsz, 1, tgt_len, src_len).to(dtype)
    inverted = 1.0 - expanded
    return inverted.masked_fill(inverted.to(torch.bool), dtype_min(dtype))


def make_causal_mask(input_ids_shape: List[int], dtype: torch.dtype, past_key_values_length: int = 0) -> Tensor:
    bsz, tgt_len = input_ids_shape
    mask = torch.full((tgt_len, tgt_len), dtype_min(dtype), dtype=dtype)
    mask_cond = torch.arange(mask.size(-1))
    mask.masked_fill_(mask_cond < (mask_cond + 1).view(mask.size(-1), 1), 0)
    mask = mask.to(dtype)
    if past_key_values_length > 0:
        mask = torch.cat([torch.zeros(tgt_len, past_key_values_length, dtype=dtype), mask], dim=-1)
    return mask[None, None, :, :].expand(bsz, 1, tgt_len, tgt_len + past_key_values_length)


def expand_like(mask: Tensor, like: Tensor) -> Tensor:
    return expand_mask(mask, like.dtype)


def expand_float64(mask: Tensor, tgt_len: int) -> Tensor:
    return expand_mask(mask, torch.float64, tgt_len)


def causal_like(ids: Tensor, like: Tensor, past: int) -> Tensor:
    return make_causal_mask(list(ids.shape), like.dtype, past)
