import numpy as np

# A Numba-style kernel: no annotations; the call's arguments type the parameters.


def scaled_rows(m, k):
    out = np.empty_like(m)
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            out[i, j] = m[i, j] * k + j
    return out
