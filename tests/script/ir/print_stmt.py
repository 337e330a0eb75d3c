import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(x: Tensor, n: int) -> Tensor:
    print("n =", n, x)
    print(f"{n:3d} and {n * 2}")
    return x
