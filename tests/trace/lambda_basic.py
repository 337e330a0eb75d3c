import torch


def f(x):
    g = lambda t: t * 2 + 1
    return g(x) - g(x.flip(0))


def args0():
    return (torch.tensor([1.0, 2.0, 4.0]),)


def args1():
    return (torch.tensor([[1.0, 2.0], [3.0, 5.0]]),)
