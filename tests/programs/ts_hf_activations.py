import math
import torch
import torch.nn.functional as F
from torch import Tensor


# Hugging Face transformers style activations, chosen by name


def gelu_new(x: Tensor) -> Tensor:
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


def gelu_fast(x: Tensor) -> Tensor:
    return 0.5 * x * (1.0 + torch.tanh(x * 0.7978845608 * (1.0 + 0.044715 * x * x)))


def quick_gelu(x: Tensor) -> Tensor:
    return x * torch.sigmoid(1.702 * x)


def gelu_python(x: Tensor) -> Tensor:
    return x * 0.5 * (1.0 + torch.erf(x / math.sqrt(2.0)))


def activation(x: Tensor, name: str) -> Tensor:
    if name == "gelu":
        return F.gelu(x)
    elif name in ("gelu_new", "gelu_pytorch_tanh"):
        return gelu_new(x)
    elif name == "gelu_fast":
        return gelu_fast(x)
    elif name == "quick_gelu":
        return quick_gelu(x)
    elif name in ["relu", "relu6"]:
        y = F.relu(x)
        if name == "relu6":
            y = y.clamp(max=6.0)
        return y
    elif name == "silu" or name == "swish":
        return F.silu(x)
    raise KeyError(f"function {name} not found in ACT2FN mapping")


def act_by_index(x: Tensor, i: int) -> Tensor:
    names = ["gelu", "gelu_new", "gelu_fast", "quick_gelu", "relu", "relu6", "swish", "mish"]
    return activation(x, names[i])
