"""Fits of the float32 erf / gelu(erf) kernels' polynomials (crates/pyjit-runtime/src/ops/vmath.rs).

Least squares in the relative error on 300 Chebyshev points (mpmath, 40 digits); each
coefficient is rounded to float32 in turn and the rest refitted; the constant term is an f32
`hi + lo` pair. Prints the constant pair, the fit's own error on 3,000 points (and a
conditioning figure), and the coefficients lowest degree first (the Rust tables list them
highest first). The tables in vmath.rs come from:

    python3 fit_erf_f32.py erf 1 7        # ERF32_C0, ERF32_Q:   erf(a)/a in z = a^2 <= 1
    python3 fit_erf_f32.py g1 0.7 15 12   # ERFC32_G0, ERFC32_Q: (X/2) erfcx(X/sqrt2) in t = (X-1)/(X+1)

(`g` fits the same function in (a-3)/(a+3), the f64 kernels' variable, for comparison; `gelu`
fits the small-argument polynomial of the gelu(erf) kernel before its table form of 6 Dec 2026,
see fit_gelu_table_f32.py.)
Needs `pip install mpmath`; g1 takes about a minute.
"""
import sys
from fit_common import check, f32, fit
from mpmath import mp, mpf, erf, erfc, exp, sqrt, pi
mp.dps = 40

def checked(F, fc, lo, hi):
    """The worst relative error and the conditioning figure on 3,000 points."""
    return check(F, fc, lo, hi, 3000)[:2]

def show(name, fc, res):
    hi0, lo0, q = fc
    print(name, 'hi', repr(hi0), 'lo', repr(lo0), 'err', res)
    print('   Q asc', ', '.join(repr(c) for c in q))

which = sys.argv[1]
if which == 'erf':
    T = mpf(sys.argv[2]); n = int(sys.argv[3])
    F = lambda z: erf(sqrt(z)) / sqrt(z)
    fc = fit(F, 2 / sqrt(pi), mpf(0), T * T, n); show('erf', fc, checked(F, fc, mpf(0), T * T))
elif which == 'gelu':
    Y = mpf(sys.argv[2]); n = int(sys.argv[3])
    F = lambda y: erf(sqrt(y / 2)) / sqrt(y)
    fc = fit(F, sqrt(2 / pi), mpf(0), Y, n); show('gelu', fc, checked(F, fc, mpf(0), Y))
elif which == 'g':
    A0 = mpf(sys.argv[2]); A1 = mpf(sys.argv[3]); n = int(sys.argv[4])
    def F(t):
        a = 3 * (1 + t) / (1 - t)
        return a * erfc(a) * exp(a * a) / sqrt(2)
    lo = (A0 - 3) / (A0 + 3); hi = (A1 - 3) / (A1 + 3)
    fc = fit(F, F(mpf(0)), lo, hi, n); show('g', fc, checked(F, fc, lo, hi)); print(float(lo), float(hi))
if which == 'g1':   # (X/2) erfcx(X/sqrt2) in t = (X-1)/(X+1), X in [X0, X1]
    X0 = mpf(sys.argv[2]); X1 = mpf(sys.argv[3]); n = int(sys.argv[4])
    def F(t):
        X = (1 + t) / (1 - t)
        a = X / sqrt(2)
        return X / 2 * erfc(a) * exp(a * a)
    lo = (X0 - 1) / (X0 + 1); hi = (X1 - 1) / (X1 + 1)
    fc = fit(F, F(mpf(0)), lo, hi, n); show('g1', fc, checked(F, fc, lo, hi)); print(float(lo), float(hi))
