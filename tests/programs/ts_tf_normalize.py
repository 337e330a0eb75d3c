import torch
from torch import Tensor
from typing import List


# torchvision transforms style normalize: dtype checks, tensors made on the input's device


def normalize(tensor: Tensor, mean: List[float], std: List[float], inplace: bool = False) -> Tensor:
    if not isinstance(tensor, torch.Tensor):
        raise TypeError(f"img should be Tensor Image. Got {type(tensor)}")
    if not tensor.is_floating_point():
        raise TypeError(f"Input tensor should be a float tensor. Got {tensor.dtype}.")
    if tensor.ndim < 3:
        raise ValueError(f"Expected tensor to be a tensor image of size (..., C, H, W). Got {tensor.dim()} dims.")
    if not inplace:
        tensor = tensor.clone()
    dtype = tensor.dtype
    mean_t = torch.as_tensor(mean, dtype=dtype, device=tensor.device)
    std_t = torch.as_tensor(std, dtype=dtype, device=tensor.device)
    if (std_t == 0).any():
        raise ValueError(f"std evaluated to zero after conversion to {dtype}, leading to division by zero.")
    mean_t = mean_t.view(-1, 1, 1)
    std_t = std_t.view(-1, 1, 1)
    return tensor.sub_(mean_t).div_(std_t)


def normalize_inplace(tensor: Tensor, mean: List[float], std: List[float]) -> Tensor:
    out = normalize(tensor, mean, std, True)
    # the input was written through
    return out - tensor
