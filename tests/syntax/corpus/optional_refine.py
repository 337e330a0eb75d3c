from typing import Optional
import torch


def maybe(x: torch.Tensor, bias: Optional[torch.Tensor] = None) -> torch.Tensor:
    if bias is not None:
        x = x + bias
    assert bias is None or bias.dim() == 1
    return x
