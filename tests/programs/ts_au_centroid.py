import torch
from torch import Tensor


# torchaudio.functional style spectral centroid: linspace on the input's device


def spectral_centroid_from_spec(specgram: Tensor, sample_rate: int, n_fft: int) -> Tensor:
    freqs = torch.linspace(0, sample_rate // 2, steps=1 + n_fft // 2, device=specgram.device).reshape((-1, 1))
    freq_dim = -2
    return (freqs * specgram).sum(dim=freq_dim) / specgram.sum(dim=freq_dim)


def frame_energy(waveform: Tensor, frame: int) -> Tensor:
    n = waveform.size(-1) // frame
    frames = waveform[..., : n * frame].reshape(list(waveform.shape[:-1]) + [n, frame])
    return (frames ** 2).mean(-1)
