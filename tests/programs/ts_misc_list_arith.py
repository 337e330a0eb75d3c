import torch
from torch import Tensor
from typing import List, Tuple


# list arithmetic: List + List, list(shape), size()[:k] + [...], list * int


def concat_lists(a: List[int], b: List[int]) -> List[int]:
    return a + b


def new_shape(x: Tensor, h: int, w: int) -> List[int]:
    return list(x.size()[:2]) + [h, w]


def shape_list(x: Tensor) -> List[int]:
    s = list(x.shape)
    s[0] = -1
    return s


def repeat_list(a: List[int], n: int) -> List[int]:
    return a * n


def reshape_tail(x: Tensor, tail: List[int]) -> Tensor:
    return x.reshape(list(x.shape[:1]) + tail)


def tuple_concat(a: Tuple[int, int], b: Tuple[int, int]) -> Tuple[int, int, int, int]:
    return a + b


def extend_shape(x: Tensor) -> List[int]:
    out = list(x.shape)
    out += [1]
    out.extend([2, 3])
    return out
