import torch
from torch import Tensor
from typing import List, Tuple


def viterbi(emissions: Tensor, transitions: Tensor) -> Tuple[List[int], float]:
    # emissions: (T, S) log-probs, transitions: (S, S) log-probs
    score = emissions[0]
    history: List[Tensor] = []
    for t in range(1, emissions.size(0)):
        total = score[:, None] + transitions + emissions[t][None, :]
        score, best_prev = torch.max(total, dim=0)
        history.append(best_prev)
    best_score, last = torch.max(score, 0)
    path: List[int] = [int(last)]
    for i in range(len(history) - 1, -1, -1):
        last = history[i][path[-1]]
        path.append(int(last))
    out: List[int] = []
    for i in range(len(path) - 1, -1, -1):
        out.append(path[i])
    return out, float(best_score)
