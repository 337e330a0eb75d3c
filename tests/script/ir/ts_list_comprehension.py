import torch
from torch import Tensor
from typing import List, Tuple, Optional


def f(n: int) -> List[int]:
    return [i * i for i in range(n)]
