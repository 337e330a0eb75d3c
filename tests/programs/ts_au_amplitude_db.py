import torch
from torch import Tensor
from typing import Optional


# torchaudio.functional style amplitude <-> decibels with an optional dynamic-range cut


def amplitude_to_db(x: Tensor, multiplier: float, amin: float, db_multiplier: float,
                    top_db: Optional[float] = None) -> Tensor:
    x_db = multiplier * torch.log10(torch.clamp(x, min=amin))
    x_db -= multiplier * db_multiplier
    if top_db is not None:
        shape = x_db.size()
        packed = 4 if x_db.dim() == 4 else 3
        if x_db.dim() < 3:
            x_db = x_db.reshape(1, 1, shape[-2], shape[-1])
        else:
            x_db = x_db.reshape(-1, shape[-3], shape[-2], shape[-1])
        floor = x_db.amax(dim=(-3, -2, -1)) - top_db
        x_db = torch.max(x_db, floor.view(-1, 1, 1, 1))
        x_db = x_db.reshape(shape)
        if packed == 4:
            x_db = x_db + 0.0
    return x_db


def db_to_amplitude(x: Tensor, ref: float, power: float) -> Tensor:
    return ref * torch.pow(torch.pow(10.0, 0.1 * x), power)


def power_to_db(spec: Tensor, top_db: Optional[float] = None) -> Tensor:
    return amplitude_to_db(spec, 10.0, 1e-10, 0.0, top_db)
