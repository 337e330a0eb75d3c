import torch


def f(x):
    table = [[i * j for j in range(3)] for i in range(2)]
    return torch.tensor(table) * x.sum()


def args0():
    return (torch.tensor([1.0, 2.0]),)


def args1():
    return (torch.tensor([-3.0]),)
