import torch


def f(x):
    d = {"a": x, "b": x * 2}
    d["c"] = d["a"] + d["b"]
    if "b" in d:
        d["c"] = d["c"] + 1
    return d["c"] * len(d)


def args0():
    return (torch.tensor([1.0, 2.0]),)


def args1():
    return (torch.tensor([[3.0], [4.0]]),)
