"""Error of torch's float32 gelu (erf form) in float32 ulp, against a float64 reference built
from scipy's erfc (no cancellation for negative x): the accuracy of the kernel
benches/peer_table.py compares ours with (docs/kernels.md).

Usage: python crates/pyjit-runtime/tools/torch_gelu_ulp.py   (needs numpy, scipy and torch)

Samples: 2M normal x3 and 2M uniform on [-12, 12] (seed 0). Prints the largest error, where,
how many samples are off by more than 2 ulp, and the largest error for x > -3. Results whose
reference is below the smallest normal float32 are left out.
"""
import numpy as np
import scipy.special as sp
import torch


def main():
    rng = np.random.default_rng(0)
    xs = np.concatenate([
        rng.standard_normal(2_000_000).astype(np.float32) * np.float32(3),
        rng.uniform(-12, 12, 2_000_000).astype(np.float32),
    ])
    x64 = xs.astype(np.float64)
    ref = 0.5 * x64 * sp.erfc(-x64 / np.sqrt(2.0))
    got = torch.nn.functional.gelu(torch.from_numpy(xs)).numpy().astype(np.float64)
    keep = np.isfinite(ref) & (np.abs(ref) >= np.finfo(np.float32).tiny)
    ulp = np.spacing(np.abs(ref[keep]).astype(np.float32)).astype(np.float64)
    err = np.abs(got[keep] - ref[keep]) / ulp
    i = int(np.argmax(err))
    above = xs[keep] > -3
    print(f"torch {torch.__version__} gelu (erf), float32: max {err.max():.6g} ulp at x = {xs[keep][i]!r}; "
          f"{int((err > 2).sum())} of {int(keep.sum())} samples above 2 ulp; "
          f"max for x > -3: {err[above].max():.6g} ulp")


if __name__ == "__main__":
    main()
