import numpy as np

# Softmax of each row with explicit loops: a running maximum carried through an `if`, a
# float32 accumulator updated in place, and a second pass that rewrites `out` element by element.


def row_softmax(m):
    out = np.empty_like(m)
    for r in range(m.shape[0]):
        top = m[r, 0]
        for c in range(1, m.shape[1]):
            if m[r, c] > top:
                top = m[r, c]
        total = np.float32(0.0)
        for c in range(m.shape[1]):
            e = np.exp(m[r, c] - top)
            out[r, c] = e
            total += e
        for c in range(m.shape[1]):
            out[r, c] = out[r, c] / total
    return out
