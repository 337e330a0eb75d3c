import torch
from torch import Tensor

EPS = 1e-6
STEPS = 3
SCALE = 2
USE_BIAS = True
LIMITS = (-1.5, 1.5)


def normalize(x: Tensor) -> Tensor:
    return (x - x.mean()) / (x.std() + EPS)


def apply(x: Tensor) -> Tensor:
    for _ in range(STEPS):
        x = x * SCALE
        if USE_BIAS:
            x = x + 1.0
    return x.clamp(LIMITS[0], LIMITS[1])


def limit_width() -> float:
    return LIMITS[1] - LIMITS[0] + EPS * STEPS
