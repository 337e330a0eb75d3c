import torch


def f(x):
    first, *middle, last = [x * i for i in range(5)]
    bag = {"a": first, "b": last, "c": x}
    del bag["c"]
    parts = list(middle)
    del parts[0]
    head, *tail = x.shape
    return torch.stack(parts).sum(0) + bag["a"] + bag["b"] * head, len(tail), sorted(bag.keys())


def args0():
    return (torch.tensor([1.0, 2.0]),)


def args1():
    return (torch.tensor([[1.0, 2.0], [3.0, 4.0]]),)
