"""Writes the example inputs of examples/ (run from the repository root with NumPy installed:
`python examples/data/gen.py`). The files are committed, so running the examples needs no Python."""

import pathlib

import numpy as np

here = pathlib.Path(__file__).parent
rng = np.random.default_rng(16)


def save(name, a):
    np.save(here / name, a)


save("x.npy", np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype=np.float32))
save("mlp_x.npy", rng.standard_normal((4, 3)).astype(np.float32))
save("mlp_w1.npy", rng.standard_normal((3, 8)).astype(np.float32))
save("mlp_b1.npy", rng.standard_normal(8).astype(np.float32))
save("mlp_w2.npy", rng.standard_normal((8, 2)).astype(np.float32))
save("mlp_b2.npy", rng.standard_normal(2).astype(np.float32))
save("readings.npy", np.array([0.5, 2.5, 1.0, 3.5, 0.25, 4.0], dtype=np.float32))
