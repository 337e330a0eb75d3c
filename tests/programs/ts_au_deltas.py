import torch
import torch.nn.functional as F
from torch import Tensor


# torchaudio.functional style delta coefficients: reshape by size(), constant padding


def compute_deltas(specgram: Tensor, win_length: int = 5) -> Tensor:
    if win_length < 3:
        raise ValueError(f"Window length should be greater than or equal to 3. Found win_length {win_length}")
    shape = specgram.size()
    specgram = specgram.reshape(1, -1, shape[-1])
    n = (win_length - 1) // 2
    denom = n * (n + 1) * (2 * n + 1) / 3
    padded = F.pad(specgram, (n, n), mode="constant", value=0.0)
    t = specgram.shape[-1]
    out = torch.zeros_like(specgram)
    for k in range(-n, n + 1):
        out += k * padded[..., n + k : n + k + t]
    out = out / denom
    return out.reshape(shape)
