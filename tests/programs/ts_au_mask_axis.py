import torch
from torch import Tensor


# torchaudio.functional style masking along the frequency or time axis


def mask_along_axis(specgram: Tensor, start: int, width: int, mask_value: float, axis: int) -> Tensor:
    if axis not in [1, 2]:
        raise ValueError("Only Frequency and Time masking are supported")
    shape = specgram.size()
    specgram = specgram.reshape(-1, shape[-2], shape[-1])
    mask = torch.arange(0, specgram.shape[axis], device=specgram.device, dtype=specgram.dtype)
    mask = (mask >= start) & (mask < start + width)
    if axis == 1:
        mask = mask.unsqueeze(-1)
    specgram = specgram.masked_fill(mask, mask_value)
    return specgram.reshape(shape)
