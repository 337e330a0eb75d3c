import numpy as np


def mandelbrot(n: int, max_iter: int) -> np.ndarray:
    out = np.zeros((n, n), dtype=np.int32)
    for i in range(n):
        ci = -1.5 + 3.0 * i / n
        for j in range(n):
            cr = -2.0 + 3.0 * j / n
            zr = 0.0
            zi = 0.0
            k = 0
            while k < max_iter and zr * zr + zi * zi <= 4.0:
                t = zr * zr - zi * zi + cr
                zi = 2.0 * zr * zi + ci
                zr = t
                k += 1
            out[i, j] = k
    return out
