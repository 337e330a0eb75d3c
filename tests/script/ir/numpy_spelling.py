import numpy as np


def f(a: np.ndarray, n: int) -> np.ndarray:
    z = np.zeros((n, 3))
    s = np.tanh(a).sum(axis=0)
    return z + s.astype(np.float32)
