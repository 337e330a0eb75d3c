import torch
from torch import Tensor
from typing import Dict, List


# Dict[str, T] and Dict[int, T] values: literals, [], in, items(), keys(), get


def loss_weights(losses: List[Tensor]) -> Tensor:
    weights: Dict[str, float] = {"cls": 1.0, "box": 2.0, "giou": 0.5}
    names = ["cls", "box", "giou", "mask"]
    total = torch.zeros(())
    for i, l in enumerate(losses):
        name = names[i]
        if name in weights:
            total = total + weights[name] * l
        else:
            total = total + weights.get("cls", 1.0) * l
    return total


def count_labels(labels: List[int]) -> List[int]:
    counts: Dict[int, int] = {}
    for l in labels:
        if l in counts:
            counts[l] = counts[l] + 1
        else:
            counts[l] = 1
    out: List[int] = []
    for k, v in counts.items():
        out.append(k * 100 + v)
    return out


def key_count(x: Tensor) -> int:
    d = {"a": x, "b": x * 2}
    n = 0
    for k in d.keys():
        n += d[k].numel()
    return n + len(d)


def class_weight(name: str, scale: float) -> float:
    w: Dict[str, float] = {"person": 1.0, "car": 2.0}
    w["bike"] = 0.5
    w["car"] += scale
    return w[name] * scale


def weight_of(i: int) -> float:
    names = ["person", "car", "bike", "truck"]
    return class_weight(names[i], 2.0)


def id_to_index(ids: List[int]) -> Tensor:
    lut: Dict[int, int] = {7: 0, 3: 1, 11: 2}
    out: List[int] = []
    for i in ids:
        j = lut.get(i)
        if j is None:
            out.append(-1)
        else:
            out.append(j)
    return torch.tensor(out)


def sum_values(x: Tensor) -> Tensor:
    parts: Dict[str, Tensor] = {}
    parts["min"] = x.min()
    parts["max"] = x.max()
    parts["mean"] = x.mean()
    total = torch.zeros(())
    for v in parts.values():
        total = total + v
    keys = [k for k in parts]
    return total * len(keys)
