import torch


def sum_filtered(n: int) -> int:
    total = 0
    for i in range(n):
        if i % 3 == 0:
            continue
        if i % 2 == 0:
            continue
        total += i
    return total


def while_continue(n: int) -> int:
    i = 0
    acc = 0
    while i < n:
        i += 1
        if i % 4 == 0:
            continue
        acc += i * i
    return acc
