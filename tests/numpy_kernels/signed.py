import numpy as np

# A Numba-style kernel: no annotations; the call's arguments type the parameters.


def signed(a, negate):
    if negate:
        return -a
    return a * np.float32(2.0)
