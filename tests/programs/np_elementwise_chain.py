import numpy as np


def elementwise_chain(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    sig = np.float32(1.0) / (np.float32(1.0) + np.exp(-y))
    return np.tanh(x * np.float32(2.0) + y) * sig - np.float32(0.5) * x


def elementwise_chain_loops(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        xi = x[i]
        yi = y[i]
        sig = np.float32(1.0) / (np.float32(1.0) + np.exp(-yi))
        out[i] = np.tanh(xi * np.float32(2.0) + yi) * sig - np.float32(0.5) * xi
    return out
