"""Fit of the float64 tanh kernel's polynomial (crates/pyjit-runtime/src/ops/vmath.rs,
TANH_F64_POLY): `tanh(x)/x = 1 + z Q(z)` in z = x^2 on [0, T^2], least squares in the relative
error on 300 Chebyshev points (mpmath, 40 digits), each coefficient rounded to float64 in turn and
the rest refitted (fit_common.py). Prints the fit's own error on 3,000 points and the coefficients
lowest degree first (the Rust table lists them highest first). The table comes from:

    python3 fit_tanh_f64.py 0.55 12

Needs `pip install mpmath`.
"""
import sys
from fit_common import check, fit
from mpmath import mp, mpf, tanh, sqrt
mp.dps = 40

T = mpf(sys.argv[1]); n = int(sys.argv[2])
F = lambda z: tanh(sqrt(z)) / sqrt(z) if z != 0 else mpf(1)
fc = fit(F, mpf(1), mpf(0), T * T, n, rnd=float)
worst, cond, tail = check(F, fc, mpf(0), T * T, 3000)
print('hi', fc[0], 'lo', fc[1], 'err', worst, 'cond', cond, 'tail', tail)
print('Q asc', ', '.join(repr(c) for c in fc[2]))
