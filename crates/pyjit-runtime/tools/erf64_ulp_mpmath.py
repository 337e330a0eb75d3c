"""True ulp errors of the float64 erf and gelu(erf) kernels (erf_f64, gelu_erf_f64 in
crates/pyjit-runtime/src/ops/vmath.rs), both flavours, against mpmath at 40 digits:

    PYJIT_ERF64_DUMP="$PWD/target/erf64.bin" cargo test --release -p pyjit-runtime erf64_dump_for_mpmath -- --ignored
    python3 crates/pyjit-runtime/tools/erf64_ulp_mpmath.py target/erf64.bin

(the test's `erf64_dump_inputs`: uniform, log-uniform, subnormal and switch-point samples).
Prints, per function and flavour, the worst error, where, and the count of samples. Needs
`pip install mpmath numpy`.

With a second argument, also writes the fixture of the test `erf64_against_mpmath_values`
(src/ops/erf64_mpmath.txt): every 1000th sample and each sample where some flavour is off by
more than 0.6 ulp, as `x erf_hi erf_off gelu_hi gelu_off`, each reference as the float64 nearest it and
its offset from that in ulps.
"""
import math
import sys

import mpmath
import numpy as np
from mpmath import mp, mpf

mp.dps = 40


def ulp_err(y, ref):
    if mpmath.isnan(ref) or y != y:
        return 0.0 if (y != y and mpmath.isnan(ref)) else float("inf")
    if ref == 0:
        return 0.0 if y == 0 else float("inf")
    e = int(mpmath.floor(mpmath.log(abs(ref), 2)))
    return float(abs(mpf(y) - ref) / mpf(2) ** (max(e, -1022) - 52))


def gelu(x):
    x = mpf(x)
    # x/2 (1 + erf(x/sqrt2)) = x/2 erfc(-x/sqrt2), without cancellation for negative x.
    return x / 2 * mpmath.erfc(-x / mpmath.sqrt(2))


def pair(ref):
    """`(hi, off)`: the float64 nearest `ref` and `ref - hi` in ulps of `hi` (as the Rust test
    measures them: 2^(max(e, -1022) - 52), e the exponent of hi), so that subnormals keep it."""
    hi = float(ref)
    if hi == 0:
        return hi, float(ref / mpf(2) ** -1074)
    e = math.frexp(hi)[1] - 1
    return hi, float((ref - mpf(hi)) / mpf(2) ** (max(e, -1022) - 52))


d = np.fromfile(sys.argv[1], dtype="<f8").reshape(-1, 5)
d = d[np.isfinite(d[:, 0])]
worst = {}
fixture = []
for i, (x, et, ef, gt, gf) in enumerate(d):
    re = mpmath.erf(mpf(x))
    rg = gelu(x)
    errs = [ulp_err(float(y), r) for y, r in ((et, re), (ef, re), (gt, rg), (gf, rg))]
    if i % 1000 == 0 or max(errs) > 0.6:
        fixture.append((x,) + pair(re) + pair(rg))
    for name, y, ref in (("erf fma", et, re), ("erf plain", ef, re),
                         ("gelu fma", gt, rg), ("gelu plain", gf, rg)):
        e = ulp_err(float(y), ref)
        if e > worst.get(name, (-1, 0))[0]:
            worst[name] = (e, x)
print("samples", len(d))
if len(sys.argv) > 2:
    with open(sys.argv[2], "w") as f:
        for row in fixture:
            f.write(" ".join(repr(float(v)) for v in row) + "\n")
    print("fixture rows", len(fixture))
for name, (e, x) in worst.items():
    print(f"{name}: max {e:.4f} ulp at x = {x!r}")
