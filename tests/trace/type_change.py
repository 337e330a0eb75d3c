import torch


def f(x):
    # one variable, four types
    y = 3
    y = x * y
    y = [y, y + 1]
    y = torch.cat(y)
    return y


def args0():
    return (torch.tensor([1.0, 2.0]),)


def args1():
    return (torch.tensor([5.0]),)
