import math
import torch
from torch import Tensor


# torchaudio.functional style


def mu_law_encoding(x: Tensor, quantization_channels: int) -> Tensor:
    mu = quantization_channels - 1.0
    x_mu = torch.sign(x) * torch.log1p(mu * torch.abs(x)) / math.log(1.0 + mu)
    return ((x_mu + 1) / 2 * mu + 0.5).to(torch.int64)


def mu_law_decoding(x_mu: Tensor, quantization_channels: int) -> Tensor:
    mu = quantization_channels - 1.0
    x = (x_mu.to(torch.float32) / mu) * 2 - 1.0
    return torch.sign(x) * (torch.exp(torch.abs(x) * math.log(1.0 + mu)) - 1.0) / mu


def amplitude_to_db(x: Tensor, multiplier: float, amin: float, top_db: float) -> Tensor:
    x_db = multiplier * torch.log10(torch.clamp(x, min=amin))
    if top_db > 0.0:
        x_db = torch.maximum(x_db, x_db.max() - top_db)
    return x_db
