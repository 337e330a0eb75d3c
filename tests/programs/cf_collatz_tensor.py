import torch
from torch import Tensor


def collatz_tensor(x: Tensor) -> Tensor:
    # elementwise Collatz on an int64 tensor; loop until every lane reaches 1
    steps = torch.zeros_like(x)
    while bool((x != 1).any()):
        active = x != 1
        even = x % 2 == 0
        x = torch.where(even, x // 2, 3 * x + 1)
        x = torch.where(active, x, torch.ones_like(x))
        steps = steps + active.long()
    return steps
