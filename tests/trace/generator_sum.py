import torch


def f(x):
    return sum(t.sum() for t in x.split(2))


def args0():
    return (torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0]),)


def args1():
    return (torch.tensor([1.0, 2.0]),)
