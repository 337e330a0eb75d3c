import torch


def collatz_steps(n: int) -> int:
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def longest_below(limit: int) -> int:
    best = 1
    best_steps = 0
    for i in range(1, limit):
        s = collatz_steps(i)
        if s > best_steps:
            best_steps = s
            best = i
    return best
