import numpy as np

# A float64 accumulator over float32 elements: each square is a float32 product, the sum
# widens to float64; the result is returned as a Python float.


def energy(a, scale):
    acc = np.float64(0.0)
    for i in range(a.shape[0]):
        acc += a[i] * a[i] * np.float32(scale)
    return float(acc)
