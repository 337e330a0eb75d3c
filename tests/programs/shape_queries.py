import torch
from torch import Tensor
from typing import List


def queries(x: Tensor) -> List[int]:
    return [x.size(0), x.size(-1), x.dim(), x.numel(), x.shape[1], len(x)]


def reshapes(x: Tensor) -> List[Tensor]:
    # x: (2, 3, 4)
    return [x.reshape(6, 4), x.reshape([-1]), x.view(2, 12), x.view(-1, 4), x.flatten(), x.flatten(1),
            torch.flatten(x, 0, 1), torch.reshape(x, (4, -1))]


def squeezes(x: Tensor) -> List[Tensor]:
    # x: (1, 3, 1, 2)
    return [x.squeeze(), x.squeeze(0), x.squeeze(2), x.squeeze(1), x.unsqueeze(0), x.unsqueeze(-1),
            torch.unsqueeze(x, 2), torch.squeeze(x, -2)]


def perms(x: Tensor) -> List[Tensor]:
    return [x.transpose(0, 1), x.transpose(-1, -2), x.permute(2, 0, 1), x.permute([1, 2, 0]).contiguous(),
            torch.transpose(x, 0, 2), x.t() if x.dim() == 2 else x.clone()]


def view_noncontiguous(x: Tensor) -> Tensor:
    # view() needs compatible strides; PyTorch raises for a transposed tensor
    return x.t().view(-1)


def bad_reshape(x: Tensor) -> Tensor:
    return x.reshape(5, -1)
