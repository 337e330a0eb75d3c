import torch
from torch import Tensor


def mlp(x: Tensor, w1: Tensor, b1: Tensor, w2: Tensor, b2: Tensor) -> Tensor:
    """A two-layer perceptron: ReLU hidden layer, softmax over the classes."""
    h = torch.relu(x @ w1 + b1)
    logits = h @ w2 + b2
    return torch.softmax(logits, dim=1)
