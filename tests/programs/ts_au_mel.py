import math
import torch
from torch import Tensor
from typing import Optional


# torchaudio.functional style mel filter banks: str mel scale names, Optional[str] norm


def hz_to_mel(freq: float, mel_scale: str = "htk") -> float:
    if mel_scale not in ["slaney", "htk"]:
        raise ValueError('mel_scale should be one of "htk" or "slaney".')
    if mel_scale == "htk":
        return 2595.0 * math.log10(1.0 + (freq / 700.0))
    f_min = 0.0
    f_sp = 200.0 / 3
    mels = (freq - f_min) / f_sp
    min_log_hz = 1000.0
    min_log_mel = (min_log_hz - f_min) / f_sp
    logstep = math.log(6.4) / 27.0
    if freq >= min_log_hz:
        mels = min_log_mel + math.log(freq / min_log_hz) / logstep
    return mels


def mel_to_hz(mels: Tensor, mel_scale: str = "htk") -> Tensor:
    if mel_scale == "htk":
        return 700.0 * (10.0 ** (mels / 2595.0) - 1.0)
    f_sp = 200.0 / 3
    freqs = f_sp * mels
    min_log_mel = 1000.0 / f_sp
    logstep = math.log(6.4) / 27.0
    log_t = mels >= min_log_mel
    freqs[log_t] = 1000.0 * torch.exp(logstep * (mels[log_t] - min_log_mel))
    return freqs


def triangular_filterbank(all_freqs: Tensor, f_pts: Tensor) -> Tensor:
    f_diff = f_pts[1:] - f_pts[:-1]
    slopes = f_pts.unsqueeze(0) - all_freqs.unsqueeze(1)
    zero = torch.zeros(1)
    down = (-1.0 * slopes[:, :-2]) / f_diff[:-1]
    up = slopes[:, 2:] / f_diff[1:]
    return torch.max(zero, torch.min(down, up))


def melscale_fbanks(n_freqs: int, f_min: float, f_max: float, n_mels: int, sample_rate: int,
                    norm: Optional[str] = None, mel_scale: str = "htk") -> Tensor:
    if norm is not None and norm != "slaney":
        raise ValueError('norm must be one of None or "slaney"')
    all_freqs = torch.linspace(0, sample_rate // 2, n_freqs)
    m_min = hz_to_mel(f_min, mel_scale=mel_scale)
    m_max = hz_to_mel(f_max, mel_scale=mel_scale)
    m_pts = torch.linspace(m_min, m_max, n_mels + 2)
    f_pts = mel_to_hz(m_pts, mel_scale=mel_scale)
    fb = triangular_filterbank(all_freqs, f_pts)
    if norm is not None and norm == "slaney":
        enorm = 2.0 / (f_pts[2 : n_mels + 2] - f_pts[:n_mels])
        fb *= enorm.unsqueeze(0)
    return fb


def fbanks_htk(n_freqs: int, n_mels: int) -> Tensor:
    return melscale_fbanks(n_freqs, 0.0, 4000.0, n_mels, 8000)


def fbanks_slaney(n_freqs: int, n_mels: int) -> Tensor:
    return melscale_fbanks(n_freqs, 0.0, 8000.0, n_mels, 16000, norm="slaney", mel_scale="slaney")


def fbanks_bad_norm(n_freqs: int, n_mels: int) -> Tensor:
    return melscale_fbanks(n_freqs, 0.0, 8000.0, n_mels, 16000, norm="area")


def mel_of(freq: float, slaney: bool) -> float:
    if slaney:
        return hz_to_mel(freq, "slaney")
    return hz_to_mel(freq)


def mel_bad(freq: float) -> float:
    return hz_to_mel(freq, "bark")
