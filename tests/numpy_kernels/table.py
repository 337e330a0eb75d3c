import numpy as np

# A Numba-style kernel: no annotations; the call's arguments type the parameters.


def table(n, step):
    out = np.zeros((n, 2))
    for i in range(n):
        out[i, 0] = i * step
        out[i, 1] = -i * step
    return out
