import torch
from torch import Tensor
from typing import List, Tuple, Optional


class Model:
    def forward(self, x: Tensor) -> Tensor:
        return x
