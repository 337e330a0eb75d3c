import torch


def f(x):
    parts = []
    for i in range(x.size(0)):
        parts.append("{}:{}".format(i, "pos" if x[i] > 0 else "neg"))
    label = " ".join(parts).upper()
    print(label)
    return x.abs(), label


def args0():
    return (torch.tensor([1.0, -2.0]),)


def args1():
    return (torch.tensor([-1.0, 2.0, 3.0]),)
