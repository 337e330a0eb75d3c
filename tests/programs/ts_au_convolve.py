import torch
from torch import Tensor


# torchaudio.functional style convolution: shape checks, mode names, f-strings with lists


def _check_shape_compatible(x: Tensor, y: Tensor) -> None:
    if x.ndim != y.ndim:
        raise ValueError(f"The operands must be the same dimension (got {x.ndim} and {y.ndim}).")
    for i in range(x.ndim - 1):
        xi = x.size(i)
        yi = y.size(i)
        if xi == yi or xi == 1 or yi == 1:
            continue
        raise ValueError(f"Leading dimensions of x and y are not broadcastable (got {x.shape[i]} and {y.shape[i]}).")


def _check_convolve_mode(mode: str) -> None:
    valid_convolve_modes = ["full", "valid", "same"]
    if mode not in valid_convolve_modes:
        raise ValueError(f"Unrecognized mode value '{mode}'. Please specify one of {valid_convolve_modes}.")


def _apply_convolve_mode(conv_result: Tensor, x_length: int, y_length: int, mode: str) -> Tensor:
    valid_convolve_modes = ["full", "valid", "same"]
    if mode == "full":
        return conv_result
    elif mode == "valid":
        target_length = max(x_length, y_length) - min(x_length, y_length) + 1
        start_idx = (conv_result.size(-1) - target_length) // 2
        return conv_result[..., start_idx : start_idx + target_length]
    elif mode == "same":
        start_idx = (conv_result.size(-1) - x_length) // 2
        return conv_result[..., start_idx : start_idx + x_length]
    else:
        raise ValueError(f"Unrecognized mode value '{mode}'. Please specify one of {valid_convolve_modes}.")


def convolve(x: Tensor, y: Tensor, mode: str = "full") -> Tensor:
    _check_shape_compatible(x, y)
    _check_convolve_mode(mode)
    n = x.size(-1)
    m = y.size(-1)
    lead = list(x.shape[:-1])
    out = torch.zeros(lead + [n + m - 1], dtype=x.dtype)
    for j in range(m):
        out[..., j : j + n] += x * y[..., j : j + 1]
    return _apply_convolve_mode(out, n, m, mode)


def convolve_valid(x: Tensor, y: Tensor) -> Tensor:
    return convolve(x, y, "valid")


def convolve_same(x: Tensor, y: Tensor) -> Tensor:
    return convolve(x, y, mode="same")


def convolve_bad(x: Tensor, y: Tensor) -> Tensor:
    return convolve(x, y, mode="circular")


def apply_mode_bad(x: Tensor) -> Tensor:
    return _apply_convolve_mode(x, 3, 2, "wrap")
