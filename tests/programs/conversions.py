import torch
from torch import Tensor
from typing import List, Tuple


def tensor_casts(x: Tensor) -> List[Tensor]:
    return [x.float(), x.double(), x.long(), x.int(), x.bool(), x.to(torch.int32), x.to(torch.float64),
            x.to(dtype=torch.bool)]


def to_scalars(x: Tensor) -> Tuple[float, int, bool, float]:
    return float(x.sum()), int(x.max()), bool(x.min() > 0), x.mean().item()


def item_int(x: Tensor) -> int:
    return x.sum().item() + 1


def item_multi(x: Tensor) -> float:
    return x.item()


def bool_of_tensor(x: Tensor) -> int:
    if x:
        return 1
    return 0
