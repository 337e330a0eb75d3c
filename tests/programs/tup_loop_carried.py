import torch
from torch import Tensor
from typing import Tuple


def step(state: Tuple[Tensor, int]) -> Tuple[Tensor, int]:
    x, k = state
    return x * 0.5 + 1.0, k + 1


def run(x: Tensor, n: int) -> Tuple[Tensor, int]:
    state = (x, 0)
    for _ in range(n):
        state = step(state)
    return state
