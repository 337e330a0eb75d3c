import torch
from torch import Tensor
from typing import Tuple


def assign(x: Tensor, centers: Tensor) -> Tensor:
    d = ((x[:, None, :] - centers[None, :, :]) ** 2).sum(-1)
    return d.argmin(dim=1)


def kmeans(x: Tensor, centers: Tensor, max_iter: int) -> Tuple[Tensor, Tensor, int]:
    labels = assign(x, centers)
    it = 0
    while it < max_iter:
        it += 1
        new_centers = centers.clone()
        for k in range(centers.size(0)):
            m = labels == k
            if bool(m.any()):
                new_centers[k] = x[m].mean(0)
        centers = new_centers
        new_labels = assign(x, centers)
        if bool((new_labels == labels).all()):
            break
        labels = new_labels
    return centers, labels, it
