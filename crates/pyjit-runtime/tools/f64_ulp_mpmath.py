"""True ulp errors of pyjit's float64 kernels, against mpmath at 40 digits.

The Rust tests (`f64_kernels_stay_within_their_ulp_bounds`) measure float64 kernels against
glibc's float64 functions, which are themselves off by up to ~2 ulp for some (glibc's tanh is
1.80 ulp off at x = -0.525); this script measures the real error. Each function runs through
the pyjit Python package (native code, the runtime's kernels) on N uniform samples of its
domain plus N log-uniform ones (positive for the logarithms), and, when torch is installed,
through torch's eager kernel for comparison. Prints the worst error and where.

    pip install mpmath numpy   # and build the package: see docs/python.md
    PYTHONPATH=crates/pyjit-py/python python3 crates/pyjit-runtime/tools/f64_ulp_mpmath.py [N] [names...]
"""
import importlib.util
import os
import sys
import tempfile

import mpmath
import numpy as np
import pyjit
from mpmath import mp, mpf

mp.dps = 40

try:
    import torch
except ImportError:
    torch = None

# name: (mpmath reference, uniform domain)
CASES = {
    "exp": (mpmath.exp, -700, 700),
    "expm1": (mpmath.expm1, -40, 700),
    "log": (mpmath.log, 1e-300, 1e300),
    "log1p": (mpmath.log1p, -0.999, 1e10),
    "log2": (lambda v: mpmath.log(v, 2), 1e-300, 1e300),
    "log10": (mpmath.log10, 1e-300, 1e300),
    "tanh": (mpmath.tanh, -20, 20),
    "sinh": (mpmath.sinh, -700, 700),
    "cosh": (mpmath.cosh, -700, 700),
    "sin": (mpmath.sin, -100, 100),
    "cos": (mpmath.cos, -100, 100),
    "tan": (mpmath.tan, -100, 100),
    "asin": (mpmath.asin, -1, 1),
    "acos": (mpmath.acos, -1, 1),
    "atan": (mpmath.atan, -100, 100),
}
LOGS = ("log", "log2", "log10")


def ulp_err(y, ref):
    if ref == 0:
        return 0.0 if y == 0 else float("inf")
    e = mpmath.floor(mpmath.log(abs(ref), 2))
    return float(abs(mpf(y) - ref) / mpf(2) ** (max(e, -1022) - 52))


def samples(rng, name, lo, hi, n):
    if name in LOGS:
        return np.exp(rng.uniform(-690, 690, 2 * n))
    a = rng.uniform(lo, hi, n)
    top = max(abs(lo), abs(hi))
    b = np.exp(rng.uniform(np.log(1e-8), np.log(top), n)) * rng.choice([-1.0, 1.0], n)
    return np.concatenate([a, b[(b >= lo) & (b <= hi)]])


def compiled(names):
    """`f_<name>(x) = torch.<name>(x)` for each name, compiled by `pyjit.script`."""
    src = "import torch\nfrom torch import Tensor\n"
    for name in names:
        src += f"\n\ndef f_{name}(x: Tensor) -> Tensor:\n    return torch.{name}(x)\n"
    path = os.path.join(tempfile.mkdtemp(), "pyjit_f64_kernels.py")
    with open(path, "w") as f:
        f.write(src)
    spec = importlib.util.spec_from_file_location("pyjit_f64_kernels", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return {name: pyjit.script(getattr(mod, f"f_{name}")) for name in names}


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 30000
    names = sys.argv[2:] or list(CASES)
    fns = compiled(names)
    rng = np.random.default_rng(1)
    for name in names:
        ref, lo, hi = CASES[name]
        x = samples(rng, name, lo, hi, n)
        outs = {"pyjit": np.asarray(fns[name](x), dtype=np.float64)}
        if torch is not None:
            outs["torch"] = getattr(torch, name)(torch.from_numpy(x)).numpy()
        refs = [ref(mpf(float(v))) for v in x]
        line = f"{name:6s}"
        for who, y in outs.items():
            errs = [ulp_err(float(v), r) for v, r in zip(y, refs)]
            i = int(np.argmax(errs))
            line += f"  {who} {errs[i]:.3f} ulp at {x[i]!r}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
