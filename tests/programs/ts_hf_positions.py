import torch
from torch import Tensor


# Hugging Face transformers style position ids from input ids (padding-aware), type_as


def position_ids_from_input_ids(input_ids: Tensor, padding_idx: int, past_key_values_length: int = 0) -> Tensor:
    mask = input_ids.ne(padding_idx).int()
    incremental = (torch.cumsum(mask, dim=1).type_as(mask) + past_key_values_length) * mask
    return incremental.long() + padding_idx


def position_ids_from_embeds(embeds: Tensor, padding_idx: int) -> Tensor:
    input_shape = embeds.size()[:-1]
    sequence_length = input_shape[1]
    ids = torch.arange(padding_idx + 1, sequence_length + padding_idx + 1, dtype=torch.long, device=embeds.device)
    return ids.unsqueeze(0).expand(input_shape)
