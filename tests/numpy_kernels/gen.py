"""Writes expected.txt: what real NumPy returns for each call below of FUNCTION.py (one
Numba-style kernel a file, whose unannotated parameters take the types of the call's arguments). Run with a Python
that has numpy:
    python tests/numpy_kernels/gen.py
One line a call: `function|ARGs|dtype|shape|values` (dtype `int`/`float` for a Python scalar,
shape `-` for a scalar, floats as repr). The inputs a.npy and m.npy are written by the test."""

import importlib.util
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
A = np.array([1.5, -2.0, 3.0, 0.25, -0.5], dtype=np.float32)
M = np.array([[1.0, 2.0, 4.0], [3.0, 5.0, 9.0]], dtype=np.float32)
CALLS = [
    ("sum_of_squares", ["10"]),
    ("sum_of_squares", ["0"]),
    ("harmonic", ["7"]),
    ("scaled_rows", ["m.npy", "3"]),
    ("scaled_rows", ["m.npy", "0.5"]),
    ("clip_above", ["a.npy", "1.0"]),
    ("ramp", ["3", "2"]),
    ("table", ["3", "0.25"]),
    ("signed", ["a.npy", "True"]),
    ("signed", ["a.npy", "False"]),
    ("gated", ["a.npy", "a.npy"]),
    ("row_softmax", ["m.npy"]),
    ("energy", ["a.npy", "0.1"]),
    ("escape_grid", ["6", "30"]),
    ("with_helpers", ["a.npy", "4"]),
]


def arg(word):
    return {"a.npy": A, "m.npy": M}.get(word) if word.endswith(".npy") else eval(word)


def main():
    out = []
    for fn, words in CALLS:
        spec = importlib.util.spec_from_file_location(fn, os.path.join(HERE, fn + ".py"))
        m = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(m)
        r = getattr(m, fn)(*[arg(w) for w in words])
        if isinstance(r, (int, float)):
            dtype, shape, vals = type(r).__name__, "-", [repr(r)]
        else:
            dtype = str(r.dtype)
            shape = ",".join(str(d) for d in r.shape) or "-"
            vals = [repr(float(v)) if r.dtype.kind == "f" else str(int(v)) for v in r.reshape(-1)]
        out.append("|".join([fn, " ".join(words), dtype, shape, " ".join(vals)]))
    with open(os.path.join(HERE, "expected.txt"), "w") as fh:
        fh.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
