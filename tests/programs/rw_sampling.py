import torch
from torch import Tensor
from typing import List


def greedy_decode(logits_table: Tensor, start: int, eos: int, max_len: int) -> List[int]:
    # toy autoregressive loop: next token = argmax of the row of the current token
    out: List[int] = [start]
    cur = start
    while len(out) < max_len:
        cur = int(logits_table[cur].argmax())
        out.append(cur)
        if cur == eos:
            break
    return out


def top_p_mask(probs: Tensor, p: float) -> Tensor:
    # keep the smallest set of largest probabilities whose sum reaches p (selection by argmax)
    keep = torch.zeros(probs.size(), dtype=torch.bool)
    work = probs.clone()
    total = 0.0
    while total < p:
        i = int(work.argmax())
        keep[i] = True
        total += float(probs[i])
        work[i] = -1.0
    return keep


def temperature_softmax(logits: Tensor, t: float) -> Tensor:
    if t <= 0.0:
        out = torch.zeros_like(logits)
        out[int(logits.argmax())] = 1.0
        return out
    return torch.softmax(logits / t, dim=-1)
