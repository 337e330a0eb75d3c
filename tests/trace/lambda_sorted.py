import torch


def f(x):
    # sorting tensors by a Python key: every comparison is guarded
    ts = [x, x * 2, -x, x - 1]
    ts = sorted(ts, key=lambda t: float(t.sum()))
    return torch.stack(ts)


def args0():
    return (torch.tensor([1.0, 2.0]),)


def args1():
    return (torch.tensor([-1.0, -2.0]),)
