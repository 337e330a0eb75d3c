import torch


def f(x, n: int):
    for i in range(n):
        x = i * 2
    return x
