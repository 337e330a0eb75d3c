import torch


def f(x):
    # comprehension with a data-dependent filter over a tensor's elements
    pos = [v for v in x if v > 0]
    if len(pos) == 0:
        return torch.zeros(1)
    return torch.stack(pos) * 2


def args0():
    return (torch.tensor([1.0, -2.0, 3.0]),)


def args1():
    return (torch.tensor([-1.0, 4.0, 5.0, 6.0]),)


def args2():
    return (torch.tensor([-1.0, -4.0]),)
