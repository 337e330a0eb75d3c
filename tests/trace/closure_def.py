import torch


def f(x, k: int):
    def scale(t):
        return t * k

    def twice(g, t):
        return g(g(t))

    return twice(scale, x) + scale(x * x)


def args0():
    return (torch.tensor([1.0, 2.0]), 3)


def args1():
    return (torch.tensor([1.0, 2.0]), -2)
