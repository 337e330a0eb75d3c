import torch
from torch import Tensor


# torchaudio.functional style mu-law companding: is_floating_point, dtype-matched constants


def mu_law_encoding(x: Tensor, quantization_channels: int) -> Tensor:
    mu = quantization_channels - 1.0
    if not x.is_floating_point():
        x = x.to(torch.float)
    mu_t = torch.tensor(mu, dtype=x.dtype)
    x_mu = torch.sign(x) * torch.log1p(mu_t * torch.abs(x)) / torch.log1p(mu_t)
    return ((x_mu + 1) / 2 * mu_t + 0.5).to(torch.int64)


def mu_law_decoding(x_mu: Tensor, quantization_channels: int) -> Tensor:
    mu = quantization_channels - 1.0
    if not x_mu.is_floating_point():
        x_mu = x_mu.to(torch.float)
    mu_t = torch.tensor(mu, dtype=x_mu.dtype)
    x = ((x_mu) / mu_t) * 2 - 1.0
    return torch.sign(x) * (torch.exp(torch.abs(x) * torch.log1p(mu_t)) - 1.0) / mu_t


def roundtrip(x: Tensor, channels: int) -> Tensor:
    return mu_law_decoding(mu_law_encoding(x, channels), channels)
