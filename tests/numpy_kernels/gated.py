import numpy as np

# Element arithmetic in an explicit loop: every x[i] is a float32 scalar, and so is every
# intermediate (the constants are np.float32), as Numba users write fused loops.


def gated(x, y):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        g = np.float32(1.0) / (np.float32(1.0) + np.exp(-y[i]))
        out[i] = np.tanh(x[i] * np.float32(1.5) - y[i]) * g
    return out
