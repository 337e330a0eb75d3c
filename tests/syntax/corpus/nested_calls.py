import torch


def deep(x: torch.Tensor) -> torch.Tensor:
    return torch.relu(torch.matmul(torch.tanh(x), torch.sigmoid(x.t())).clamp(min=-1.0, max=1.0))


def mixed(a, b):
    return max(min(abs(a), abs(b)), round(float(int(a) + int(b)) / 2.0))
