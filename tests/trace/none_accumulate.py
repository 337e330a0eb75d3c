import torch


def f(x):
    acc = None
    for row in x:
        acc = row if acc is None else acc + row
    return acc


def args0():
    return (torch.tensor([[1.0, 2.0], [3.0, 4.0]]),)


def args1():
    return (torch.tensor([[1.0, 2.0, 3.0], [3.0, 4.0, 5.0], [1.0, 1.0, 1.0]]),)
