import torch


def f(x):
    counts = {}
    for i in x.argmax(1):
        k = int(i)
        counts[k] = counts.get(k, 0) + 1
    return torch.tensor([counts.get(c, 0) for c in range(x.size(1))])


def args0():
    return (torch.tensor([[1.0, 2.0, 0.0], [3.0, 1.0, 0.0], [0.0, 5.0, 1.0]]),)


def args1():
    return (torch.tensor([[0.0, 0.0, 9.0], [0.0, 0.0, 9.0]]),)
