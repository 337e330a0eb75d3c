import numpy as np

# A Numba-style kernel: no annotations; the call's arguments type the parameters.


def clip_above(a, limit):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        v = a[i]
        if v > limit:
            v = np.float32(limit)
        out[i] = v
    return out
