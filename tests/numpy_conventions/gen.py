"""Writes expected.txt: what real NumPy (numpy_style.py) and PyTorch (torch_style.py) return
for the input below. Run with a Python that has numpy and torch:
    python tests/numpy_conventions/gen.py
One line a function: `file function dtype shape values...` (bools as 0/1, floats as repr)."""

import importlib.util
import os

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
INPUT = [[1.0, 2.0, 4.0], [3.0, 5.0, 9.0]]
NAMES = {"float64": "float64", "float32": "float32", "int64": "int64", "bool": "bool"}


def load(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, name + ".py"))
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def line(file, fn, r):
    a = r.numpy() if isinstance(r, torch.Tensor) else np.asarray(r)
    dtype = NAMES[str(a.dtype)]
    shape = ",".join(str(d) for d in a.shape) or "-"
    vals = [repr(float(v)) if a.dtype.kind == "f" else str(int(v)) for v in a.reshape(-1)]
    return " ".join([file, fn, dtype, shape] + vals)


def main():
    out = []
    for file, arg in [
        ("numpy_style", np.array(INPUT, dtype=np.float64)),
        ("torch_style", torch.tensor(INPUT, dtype=torch.float32)),
    ]:
        m = load(file)
        for fn in [n for n in vars(m) if not n.startswith("_")]:
            f = getattr(m, fn)
            if callable(f) and getattr(f, "__module__", None) == file:
                out.append(line(file, fn, f(arg)))
    with open(os.path.join(HERE, "expected.txt"), "w") as fh:
        fh.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
