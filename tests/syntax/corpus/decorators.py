import torch


@torch.jit.script
def scripted(x: torch.Tensor) -> torch.Tensor:
    return x + 1


@torch.jit.ignore
@staticmethod
def twice(x):
    return x


@decorator(with_args=1)
def decorated():
    pass
