import numpy as np

# A Numba-style kernel: no annotations; the call's arguments type the parameters.


def harmonic(n):
    s = 0.0
    k = 1
    while k <= n:
        s += 1.0 / k
        k += 1
    return s
