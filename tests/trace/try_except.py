import torch


def lookup(table, key):
    try:
        return table[key]
    except KeyError:
        return None
    finally:
        table["hits"] = table.get("hits", 0) + 1


def f(x, key: str):
    table = {"double": x * 2, "neg": -x}
    v = lookup(table, key)
    if v is None:
        try:
            return x / 0 if False else x + table["hits"]
        except (ZeroDivisionError, LookupError) as e:
            raise
    return v


def args0():
    return (torch.tensor([1.0, 2.0]), "double")


def args1():
    return (torch.tensor([1.0, 2.0]), "missing")


def args2():
    return (torch.tensor([3.0]), "neg")
