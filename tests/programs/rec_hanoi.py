import torch
from typing import List


def hanoi(n: int, src: int, dst: int, tmp: int, moves: List[int]) -> int:
    # records each move as src * 10 + dst into the shared list
    if n == 0:
        return 0
    a = hanoi(n - 1, src, tmp, dst, moves)
    moves.append(src * 10 + dst)
    b = hanoi(n - 1, tmp, dst, src, moves)
    return a + b + 1


def hanoi_moves(n: int) -> List[int]:
    moves: List[int] = []
    count = hanoi(n, 1, 3, 2, moves)
    moves.append(count)
    return moves
