import torch
from torch import Tensor


# device values: x.device, device= arguments, "cpu" strings, .to(device)


def zeros_on(x: Tensor) -> Tensor:
    return torch.zeros(x.shape, device=x.device, dtype=x.dtype) + x


def arange_cpu(n: int) -> Tensor:
    return torch.arange(n, device="cpu")


def move(x: Tensor, device: torch.device) -> Tensor:
    return x.to(device) * 2


def move_like(x: Tensor, y: Tensor) -> Tensor:
    return move(x, y.device) + y.to(device=x.device, dtype=x.dtype)


def ones_device_obj(n: int) -> Tensor:
    return torch.ones(n, device=torch.device("cpu"), dtype=torch.float64)
