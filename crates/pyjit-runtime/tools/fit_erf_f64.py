"""Fit of the float64 erf and gelu(erf) kernels' tables (crates/pyjit-runtime/src/ops/vmath.rs):

- FRAC_1_SQRT_2_LO: `1/sqrt 2 - FRAC_1_SQRT_2`;
- ERF64_C0 / ERF64_Q: `erf(a)/a = C0 + z Q(z)`, z = a^2 in [0, 1], Q of 12 float64 coefficients;
- ERFCX64_TABLE: `erfcx(y) = e^(y^2) erfc(y) = c0_hi + (c0_lo + t Q(t))`, Q of 9 float64
  coefficients, one row per interval of y: row 0 is `0 <= y < 2^-4` (t = y), row
  `1 + 16 (e + 4) + j` is `2^e (1 + j/16) <= y < 2^e (1 + (j+1)/16)` for e in -4..=4 (up to row
  140, y < 28), with t = y - c, c = 2^e (1 + (j + 1/2)/16) the interval's centre.

Least squares in the relative error on Chebyshev points (mpmath, 40 digits), each coefficient
rounded to float64 in turn and the rest refitted (fit_common.py; the table's rows in
`v = t/w`, w the interval's half-width, a power of two, then scaled back exactly). Prints the worst fit errors
(on 3,000 / 300 even points) to stderr and the Rust constants, highest coefficient first, to
stdout; the source's constants come from:

    python3 fit_erf_f64.py > consts.rs

Needs `pip install mpmath`.
"""
import sys
from fit_common import check, fit
from mpmath import mp, mpf, erf, erfc, exp, sqrt, pi
mp.dps = 40

NQ_ERF = 12
NQ_ERFCX = 9
SUB = 16


def erfcx(y): return erfc(y) * exp(y * y)


def rows():
    """(lo, hi, c) of each row of the erfcx table."""
    out = [(mpf(0), mpf(2) ** -4, mpf(0))]
    for e in range(-4, 5):
        for j in range(SUB):
            lo = mpf(2) ** e * (1 + mpf(j) / SUB)
            if lo >= 27.5: return out
            hi = mpf(2) ** e * (1 + mpf(j + 1) / SUB)
            out.append((lo, hi, mpf(2) ** e * (1 + (mpf(j) + mpf(1) / 2) / SUB)))
    return out


def fmt(v):
    return repr(float(v))


F = lambda z: erf(sqrt(z)) / sqrt(z) if z != 0 else 2 / sqrt(pi)
fc = fit(F, 2 / sqrt(pi), mpf(0), mpf(1), NQ_ERF, rnd=float)
worst, cond, tail = check(F, fc, mpf(0), mpf(1), 3000)
print('erf: err', worst, 'cond', cond, 'tail', tail, file=sys.stderr)
assert fc[0] == float(2 / sqrt(pi))
print('/// `erf(a)/a = C0 + z Q(z)`, `z = a^2 <= 1`: `C0 = 2/sqrt(pi)` as `hi + lo`, `Q` highest first.')
print('const ERF64_C0: (f64, f64) = (std::f64::consts::FRAC_2_SQRT_PI, %s);' % fmt(fc[1]))
h = float(1 / sqrt(2))
print('/// `1/sqrt 2 - FRAC_1_SQRT_2`.')
print('const FRAC_1_SQRT_2_LO: f64 = %s;' % fmt(1 / sqrt(2) - mpf(h)))
print('#[rustfmt::skip]')
print('const ERF64_Q: [f64; %d] = [%s];' % (NQ_ERF, ', '.join(fmt(c) for c in reversed(fc[2]))))

print('/// `erfcx y = c0_hi + (c0_lo + t Q(t))` by intervals of `y`, `Q` highest first ([`erfcx64`]).')
print('#[rustfmt::skip]')
print('#[allow(clippy::approx_constant)]')
table = rows()
print('const ERFCX64_TABLE: [(f64, f64, [f64; %d]); %d] = [' % (NQ_ERFCX, len(table)))
worst_all = (0, None); tail_all = 0
for lo, hi, c in table:
    # Fitted in v = t/w (w = the half-width, a power of two, so the scaling is exact).
    w = (hi - lo) / 2
    G = lambda v, c=c, w=w: erfcx(c + w * v)
    fc = fit(G, erfcx(c), (lo - c) / w, (hi - c) / w, NQ_ERFCX, m=60, rnd=float)
    worst, cond, tail = check(G, fc, (lo - c) / w, (hi - c) / w, 300)
    fc = (fc[0], fc[1], [float(mpf(q) / w ** (j + 1)) for j, q in enumerate(fc[2])])
    if worst > worst_all[0]: worst_all = (worst, float(lo))
    tail_all = max(tail_all, tail)
    print('    (%s, %s, [%s]),' % (fmt(fc[0]), fmt(fc[1]), ', '.join(fmt(q) for q in reversed(fc[2]))))
print('];')
print('erfcx: worst err', worst_all, 'tail', tail_all, file=sys.stderr)
