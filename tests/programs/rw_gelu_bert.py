import math
import torch
from torch import Tensor


def gelu_tanh(x: Tensor) -> Tensor:
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


def bias_gelu(bias: Tensor, y: Tensor) -> Tensor:
    x = bias + y
    return x * 0.5 * (1.0 + torch.tanh(0.79788456 * x * (1 + 0.044715 * x * x)))


def mish(x: Tensor) -> Tensor:
    return x * torch.tanh(torch.nn.functional.softplus(x))
