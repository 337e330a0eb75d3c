import torch
from torch import Tensor


# fairseq.utils.make_positions


def make_positions(tensor: Tensor, padding_idx: int) -> Tensor:
    mask = tensor.ne(padding_idx).int()
    return (torch.cumsum(mask, dim=1).to(torch.int32) * mask).long() + padding_idx


def sinusoidal(num: int, dim: int) -> Tensor:
    half = dim // 2
    scale = torch.exp(torch.arange(half, dtype=torch.float32) * (-9.210340371976184 / (half - 1)))
    emb = torch.arange(num, dtype=torch.float32).unsqueeze(1) * scale.unsqueeze(0)
    return torch.cat([torch.sin(emb), torch.cos(emb)], dim=1)
