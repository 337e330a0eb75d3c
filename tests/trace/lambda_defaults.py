import torch


def f(x):
    fs = [lambda t, k=k: t + k for k in range(3)]
    return torch.stack([g(x) for g in fs])


def args0():
    return (torch.tensor([1.0, 2.0]),)


def args1():
    return (torch.tensor([0.0]),)
