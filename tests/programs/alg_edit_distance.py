import torch
from typing import List


def edit_distance(a: List[int], b: List[int]) -> int:
    prev: List[int] = []
    for j in range(len(b) + 1):
        prev.append(j)
    for i in range(1, len(a) + 1):
        cur: List[int] = [i]
        for j in range(1, len(b) + 1):
            sub = prev[j - 1] + (0 if a[i - 1] == b[j - 1] else 1)
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, sub))
        prev = cur
    return prev[len(b)]
