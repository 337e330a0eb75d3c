from typing import List, Optional


def build(n: int) -> List[int]:
    acc: List[int] = []
    best: Optional[int] = None
    count: int
    for i in range(n):
        acc.append(i)
    return acc
