import torch
from torch import Tensor
from typing import Tuple


# Hugging Face transformers style rotary position embeddings: einsum, device=, rotate_half


def rotate_half(x: Tensor) -> Tensor:
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2 :]
    return torch.cat((-x2, x1), dim=-1)


def rotary_tables(dim: int, seq_len: int, base: float, like: Tensor) -> Tuple[Tensor, Tensor]:
    device = like.device
    inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2).float().to(device) / dim))
    t = torch.arange(seq_len, device=device, dtype=inv_freq.dtype)
    freqs = torch.einsum("i,j->ij", t, inv_freq)
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos().to(like.dtype), emb.sin().to(like.dtype)


def apply_rotary(q: Tensor, k: Tensor, cos: Tensor, sin: Tensor, position_ids: Tensor) -> Tuple[Tensor, Tensor]:
    cos = cos[position_ids].unsqueeze(1)
    sin = sin[position_ids].unsqueeze(1)
    q_embed = (q * cos) + (rotate_half(q) * sin)
    k_embed = (k * cos) + (rotate_half(k) * sin)
    return q_embed, k_embed


def rotary(q: Tensor, k: Tensor, position_ids: Tensor) -> Tuple[Tensor, Tensor]:
    cos, sin = rotary_tables(q.shape[-1], int(position_ids.max()) + 1, 10000.0, q)
    return apply_rotary(q, k, cos, sin, position_ids)
