import numpy as np


def column_stats(a: np.ndarray) -> np.ndarray:
    # float64 creation default, axis= reductions, NumPy broadcasting
    out = np.zeros((3, a.shape[1]))
    out[0] = a.sum(axis=0)
    out[1] = a.mean(axis=0)
    out[2] = np.max(a, axis=0) - np.min(a, axis=0)
    return out


def converge(x: np.ndarray) -> np.ndarray:
    while np.abs(x).max() > 1e-3:
        x = x * np.float32(0.5)
    return x
