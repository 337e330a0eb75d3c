import torch
from torch import Tensor
from typing import List


def ctc_greedy_decode(emissions: Tensor, blank: int) -> List[int]:
    # emissions: (T, C); collapse repeats, then drop blanks
    best = emissions.argmax(dim=-1)
    out: List[int] = []
    prev = -1
    for t in range(best.size(0)):
        c = int(best[t])
        if c != prev and c != blank:
            out.append(c)
        prev = c
    return out
