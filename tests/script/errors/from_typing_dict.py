import torch
from typing import Dict


def f(n: int) -> int:
    return n
