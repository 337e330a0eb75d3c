"""Fits of the float32 gelu(erf) kernel's table of local polynomials
(crates/pyjit-runtime/src/ops/vmath.rs, GELU32_TABLE).

gelu(x) = -E(|x|) for x < 0 and x - E(x) for x >= 0, with E(a) = (a/2) erfc(a/sqrt 2)
= a R(a) e^(-a^2/2) and R(a) = erfcx(a/sqrt 2)/2, a smooth function (its relative slope is
at most 0.8). Row k of the table covers |a - k/2| <= 1/4 (row 0: 0 <= a <= 1/4), k = 0..30,
as R(k/2 + t) ~ c0_hi + (c0_lo + t Q(t)). Least squares in the relative error on Chebyshev
points (mpmath, 40 digits); each coefficient is rounded to float32 in turn and the rest
refitted; the constant term is an f32 hi + lo pair. Prints, per row, the worst relative error
of the rounded fit on 2,000 points and the largest |t Q(t) / R| (what the kernel rounds
besides the last addition), then the Rust table (highest degree first).

    python3 fit_gelu_table_f32.py 6      # Q of 6 coefficients (degree 6 in t)

Needs `pip install mpmath`; takes about a minute.
"""
import sys
from fit_common import check, fit
from mpmath import mp, mpf, erfc, exp, sqrt
mp.dps = 40

n = int(sys.argv[1])
q4 = mpf(1) / 4
rows = []
for k in range(31):
    c = mpf(k) / 2
    F = lambda t, c=c: erfc((c + t) / sqrt(2)) * exp((c + t) ** 2 / 2) / 2
    lo_t = mpf(0) if k == 0 else -q4
    fc = fit(F, F(mpf(0)), lo_t, q4, n, m=80)
    worst, _, tail = check(F, fc, lo_t, q4, 2000)
    err = (worst, tail)
    print(f"// k={k:2d} err {err[0]:.3e} |tQ/R| <= {err[1]:.3f}", file=sys.stderr)
    rows.append(fc)
print(f"/// `(c0_hi, c0_lo, [q_{n-1}, ..., q_0])` per interval k (a = k/2 + t).")
print(f"const GELU32_TABLE: [(f32, f32, [f32; {n}]); 31] = [")
for hi0, lo0, q in rows:
    qs = ", ".join(repr(c) for c in reversed(q))
    print(f"    ({hi0!r}, {lo0!r}, [{qs}]),")
print("];")
