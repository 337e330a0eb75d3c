import torch
from typing import Dict


def f(counts: Dict[float, int]) -> int:
    return 0
