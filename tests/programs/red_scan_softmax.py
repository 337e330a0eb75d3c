import torch
import torch.nn.functional as F
from torch import Tensor
from typing import List


def scans(x: Tensor) -> List[Tensor]:
    return [torch.cumsum(x, 0), x.cumsum(dim=-1), torch.cumprod(x, 1), x.cumprod(0)]


def softmaxes(x: Tensor) -> List[Tensor]:
    return [torch.softmax(x, 1), x.softmax(dim=0), F.softmax(x, dim=-1), torch.log_softmax(x, -1),
            F.log_softmax(x, dim=0), x.log_softmax(1)]


def int_cumsum(x: Tensor) -> Tensor:
    return x.cumsum(0)
