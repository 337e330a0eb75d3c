import torch
from torch import Tensor
from typing import Optional


# torchaudio.functional style gain and DC shift with an optional limiter


def gain(waveform: Tensor, gain_db: float = 1.0) -> Tensor:
    if gain_db == 0:
        return waveform
    ratio = 10 ** (gain_db / 20)
    return waveform * ratio


def dcshift(waveform: Tensor, shift: float, limiter_gain: Optional[float] = None) -> Tensor:
    output = waveform
    limiter_threshold = 0.0
    if limiter_gain is not None:
        limiter_threshold = 1.0 - (abs(shift) - limiter_gain)
    if limiter_gain is not None and shift > 0:
        mask = waveform > limiter_threshold
        temp = (waveform[mask] - limiter_threshold) * limiter_gain / (1 - limiter_threshold)
        output[mask] = (temp + limiter_threshold + shift).clamp(max=limiter_threshold)
        output[~mask] = (waveform[~mask] + shift).clamp(min=-1, max=1)
    elif limiter_gain is not None and shift < 0:
        mask = waveform < -limiter_threshold
        temp = (waveform[mask] + limiter_threshold) * limiter_gain / (1 - limiter_threshold)
        output[mask] = (temp - limiter_threshold + shift).clamp(min=-limiter_threshold)
        output[~mask] = (waveform[~mask] + shift).clamp(min=-1, max=1)
    else:
        output = (waveform + shift).clamp(min=-1, max=1)
    return output
