import numpy as np


def normalize(a: np.ndarray) -> np.ndarray:
    total = a.sum(axis=0)
    z = np.zeros((3, 4), dtype=np.float32)
    return np.tanh(a / total) + z[0, 0]
