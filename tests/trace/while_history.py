import torch


def f(x):
    history = []
    while x.abs().sum() > 1:
        x = x / 2
        history.append(x.sum().item())
    return x, len(history), history


def args0():
    return (torch.tensor([3.0, 4.0]),)


def args1():
    return (torch.tensor([0.25, 0.5]),)


def args2():
    return (torch.tensor([30.0, -4.0]),)
