import torch
import torch.nn.functional as F
from torch import Tensor
from typing import List


def activations(x: Tensor) -> List[Tensor]:
    return [torch.relu(x), F.relu(x), F.gelu(x), torch.nn.functional.silu(x), F.sigmoid(x), F.softplus(x),
            F.leaky_relu(x), F.leaky_relu(x, 0.2), x.relu(), torch.sigmoid(x)]


def manual_gelu(x: Tensor) -> Tensor:
    return 0.5 * x * (1.0 + torch.erf(x / 1.4142135623730951))


def swish_beta(x: Tensor, beta: float) -> Tensor:
    return x * torch.sigmoid(beta * x)
