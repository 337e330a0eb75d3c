import numpy as np


def escape(cr, ci, max_iter):
    zr = 0.0
    zi = 0.0
    k = 0
    while k < max_iter and zr * zr + zi * zi <= 4.0:
        t = zr * zr - zi * zi + cr
        zi = 2.0 * zr * zi + ci
        zr = t
        k += 1
    return k


def coord(j, n, lo):
    return lo + 3.0 * j / n


def escape_grid(n, max_iter):
    # Helpers with unannotated parameters are typed by their calls: escape(float, float, int),
    # coord(int, int, float).
    out = np.zeros((n, n), dtype=np.int32)
    for i in range(n):
        ci = coord(i, n, -1.5)
        for j in range(n):
            out[i, j] = escape(coord(j, n, -2.0), ci, max_iter)
    return out
