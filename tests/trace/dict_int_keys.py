import torch


def f(x, n: int):
    powers = {}
    for i in range(n):
        powers[i] = x ** i
    return sum(powers.values())


def args0():
    return (torch.tensor([1.0, 2.0, 3.0]), 3)


def args1():
    return (torch.tensor([1.0, 2.0, 3.0]), 5)
