import torch
from torch import Tensor
from typing import List


def matmuls(v: Tensor, w: Tensor, a: Tensor, b: Tensor) -> List[Tensor]:
    # v: (k), w: (k), a: (n, k), b: (k, m)
    return [v @ w, a @ v, v @ b, a @ b, torch.matmul(a, b), torch.mm(a, b), torch.mv(a, v), torch.dot(v, w),
            torch.outer(v, w), a.t(), b.t() @ a.t(), a.matmul(b)]


def batched(x: Tensor, y: Tensor, m: Tensor) -> List[Tensor]:
    # x: (B, n, k), y: (B, k, m), m: (k, p)
    return [x @ y, torch.bmm(x, y), x @ m, torch.matmul(x, y[0])]


def broadcast_batch(x: Tensor, y: Tensor) -> Tensor:
    # (2, 1, n, k) @ (3, k, m) -> (2, 3, n, m)
    return x @ y


def int_matmul(a: Tensor, b: Tensor) -> Tensor:
    return a @ b


def mismatch(a: Tensor, b: Tensor) -> Tensor:
    return torch.mm(a, b)
