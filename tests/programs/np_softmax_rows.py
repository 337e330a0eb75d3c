import numpy as np


def softmax_rows(x: np.ndarray) -> np.ndarray:
    m = np.max(x, axis=1, keepdims=True)
    e = np.exp(x - m)
    s = np.sum(e, axis=1, keepdims=True)
    return e / s


def softmax_rows_loops(x: np.ndarray) -> np.ndarray:
    # the explicit-loop form Numba users write
    rows = x.shape[0]
    cols = x.shape[1]
    out = np.empty_like(x)
    for i in range(rows):
        m = x[i, 0]
        for j in range(1, cols):
            if x[i, j] > m:
                m = x[i, j]
        s = np.float32(0.0)
        for j in range(cols):
            e = np.exp(x[i, j] - m)
            out[i, j] = e
            s += e
        for j in range(cols):
            out[i, j] = out[i, j] / s
    return out
