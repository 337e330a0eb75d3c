import torch
from torch import Tensor
from typing import List, Tuple, Optional


def collatz(n: int) -> int:
    steps = 0
    while True:
        if n == 1:
            return steps
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
