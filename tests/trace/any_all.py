import torch


def f(x):
    if any(v > 2 for v in x):
        return x - 2
    if all([v < 0 for v in x]):
        return -x
    return x


def args0():
    return (torch.tensor([1.0, 3.0]),)


def args1():
    return (torch.tensor([-1.0, -3.0]),)


def args2():
    return (torch.tensor([1.0, -1.0]),)
