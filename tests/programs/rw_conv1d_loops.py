import torch
from torch import Tensor


def conv1d(x: Tensor, w: Tensor, stride: int = 1, padding: int = 0) -> Tensor:
    # x: (C_in, L), w: (C_out, C_in, K)
    c_out = w.size(0)
    k = w.size(2)
    if padding > 0:
        z = torch.zeros(x.size(0), padding, dtype=x.dtype)
        x = torch.cat([z, x, z], dim=1)
    length = (x.size(1) - k) // stride + 1
    out = torch.zeros(c_out, length, dtype=x.dtype)
    for o in range(c_out):
        for t in range(length):
            s = t * stride
            out[o, t] = (x[:, s:s + k] * w[o]).sum()
    return out
