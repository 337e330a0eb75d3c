import torch
from torch import Tensor
from typing import List, Tuple


# shapes of functions from PyTorch's own TorchScript test suite (test_jit.py)


def test_while(a: Tensor, b: Tensor, max_count: int) -> Tensor:
    count = 0
    while bool(a.sum() < 10.0) and count < max_count:
        a = a + b
        count += 1
    return a


def test_if_else(x: Tensor, y: Tensor) -> Tensor:
    if bool(x > y):
        z = x
    else:
        z = y
    return z * 2


def test_sum_list(xs: List[int]) -> int:
    s = 0
    for x in xs:
        s += x
    return s


def test_nested_loops(a: int, b: int) -> int:
    c = 0
    for i in range(a):
        for j in range(b):
            if (i + j) % 3 == 0:
                continue
            c += i * j
    return c


def test_tuple_return(x: Tensor) -> Tuple[Tensor, Tensor]:
    return x + 1, x - 1


def test_loop_unroll(x: Tensor, n: int) -> Tensor:
    for i in range(n):
        x = x + i
    return x


def test_multiple_returns(x: int) -> int:
    if x > 0:
        if x > 10:
            return 2
        return 1
    return 0
