"""Fits of the float32 gelu(erf) kernel's two tables of local polynomials
(crates/pyjit-runtime/src/ops/vmath.rs, GELU32_TABLE and GELU32_NEAR_TABLE).

gelu(x) = -E(|x|) for x < 0 and x - E(x) for x >= 0, with E(a) = (a/2) erfc(a/sqrt 2).

- `far`: E(a) = a R(a) e^(-a^2/2) with R(a) = erfcx(a/sqrt 2)/2, a smooth function (its
  relative slope is at most 0.8). Row k covers |a - k/2| <= 1/4 (row 0: 0 <= a <= 1/4),
  k = 0..30, as R(k/2 + t) ~ c0_hi + (c0_lo + t Q(t)).
- `near`: E(a) = a G(a) with G(a) = erfc(a/sqrt 2)/2 itself, for a < 5.90625 (no
  exponential). Row k covers |a - 3k/16| <= 3/32 (row 0: 0 <= a <= 3/32), k = 0..31 (32
  rows: one AVX-512 permute per coefficient), as G(3k/16 + t) ~ c0_hi + (c0_lo + t Q(t));
  G's relative slope is below 6.1 there, so a row varies by at most 76%. The kernel's row
  index round(a * f32(16/3)) may pick the neighbouring row within 2e-7 of a row's edge, so
  each row is fitted a little beyond it (2^-16 of the half width).

Least squares in the relative error on Chebyshev points (mpmath, 40 digits); each coefficient
is rounded to float32 in turn and the rest refitted; the constant term is an f32 hi + lo pair.
Prints, per row, the worst relative error of the rounded fit on 2,000 points and the largest
|t Q(t) / F| (what the kernel rounds besides the last addition), then the Rust table (highest
degree first).

    python3 fit_gelu_table_f32.py far 6     # GELU32_TABLE: Q of 6 coefficients
    python3 fit_gelu_table_f32.py near 7    # GELU32_NEAR_TABLE: Q of 7 coefficients

Needs `pip install mpmath`; takes about a minute.
"""
import sys
from fit_common import check, fit
from mpmath import mp, mpf, erfc, exp, sqrt
mp.dps = 40

which, n = sys.argv[1], int(sys.argv[2])
if which == "far":
    name, rows_n, width = "GELU32_TABLE", 31, mpf(1) / 2
    F_at = lambda a: erfc(a / sqrt(2)) * exp(a ** 2 / 2) / 2
elif which == "near":
    name, rows_n, width = "GELU32_NEAR_TABLE", 32, mpf(3) / 16
    F_at = lambda a: erfc(a / sqrt(2)) / 2
else:
    sys.exit("usage: fit_gelu_table_f32.py far|near N")
half = width / 2 * (1 + mpf(2) ** -16 if which == "near" else 1)
rows = []
for k in range(rows_n):
    c = k * width
    F = lambda t, c=c: F_at(c + t)
    lo_t = mpf(0) if k == 0 else -half
    fc = fit(F, F(mpf(0)), lo_t, half, n, m=80)
    worst, _, tail = check(F, fc, lo_t, half, 2000)
    print(f"// k={k:2d} err {worst:.3e} |tQ/F| <= {tail:.3f}", file=sys.stderr)
    rows.append(fc)
print(f"/// `(c0_hi, c0_lo, [q_{n-1}, ..., q_0])` per interval k (a = k * {float(width)} + t).")
print(f"const {name}: [(f32, f32, [f32; {n}]); {rows_n}] = [")
for hi0, lo0, q in rows:
    qs = ", ".join(repr(c) for c in reversed(q))
    print(f"    ({hi0!r}, {lo0!r}, [{qs}]),")
print("];")
