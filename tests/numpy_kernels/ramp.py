import numpy as np

# A Numba-style kernel: no annotations; the call's arguments type the parameters.


def ramp(n, step):
    out = np.zeros((n, n + 1), dtype=np.int64)
    for i in range(n):
        for j in range(n + 1):
            out[i, j] = i * step - j
    return out
