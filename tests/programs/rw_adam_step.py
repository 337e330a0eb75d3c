import math
import torch
from torch import Tensor
from typing import Tuple


def adam_step(p: Tensor, g: Tensor, m: Tensor, v: Tensor, step: int, lr: float = 1e-3,
              beta1: float = 0.9, beta2: float = 0.999, eps: float = 1e-8) -> Tuple[Tensor, Tensor, Tensor]:
    # in-place updates of the optimizer state, as torch.optim does
    m *= beta1
    m += (1 - beta1) * g
    v *= beta2
    v += (1 - beta2) * g * g
    bc1 = 1 - beta1 ** step
    bc2 = 1 - beta2 ** step
    denom = (v / bc2).sqrt() + eps
    p -= lr / bc1 * m / denom
    return p, m, v


def train(p: Tensor, target: Tensor, steps: int) -> Tensor:
    m = torch.zeros_like(p)
    v = torch.zeros_like(p)
    for s in range(1, steps + 1):
        g = 2.0 * (p - target)
        p, m, v = adam_step(p, g, m, v, s, lr=0.1)
    return p
