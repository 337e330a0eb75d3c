import math
import torch
import torch.nn.functional as F
from torch import Tensor
from typing import Optional


# Hugging Face transformers style attention: causal masking with finfo, softmax in float32, dropout


def attn(query: Tensor, key: Tensor, value: Tensor, causal: bool, dropout: float = 0.0,
         training: bool = False, head_mask: Optional[Tensor] = None) -> Tensor:
    scores = torch.matmul(query, key.transpose(-1, -2)) / math.sqrt(query.size(-1))
    if causal:
        q_len, k_len = query.size(-2), key.size(-2)
        causal_mask = torch.ones(q_len, k_len, dtype=torch.bool, device=query.device).tril(k_len - q_len)
        mask_value = -3.4028234663852886e38 if scores.dtype == torch.float32 else -1.7976931348623157e308
        mask_value_t = torch.full([], mask_value, dtype=scores.dtype, device=scores.device)
        scores = torch.where(causal_mask, scores.to(scores.dtype), mask_value_t)
    weights = F.softmax(scores.float(), dim=-1).type_as(scores)
    weights = F.dropout(weights, p=dropout, training=training)
    if head_mask is not None:
        weights = weights * head_mask
    return torch.matmul(weights, value)
