"""The least-squares fit shared by the kernels' fitting scripts (fit_erf_f32.py,
fit_gelu_table_f32.py, fit_tanh_f64.py): `F(v) ~ c0_hi + (c0_lo + v Q(v))` with `Q` of `n` float32 coefficients
(ascending), least squares in the relative error on `m` Chebyshev points of `[lo, hi]`
(mpmath, 40 digits), each coefficient rounded to float32 (or by `rnd`, e.g. to float64) in turn and the rest refitted; the
constant term `F0` an f32 `hi + lo` pair; `at` evaluates such a rounded fit exactly, and
`check` measures it.
"""
import struct
from mpmath import mp, mpf, cos, pi, matrix, lu_solve
mp.dps = 40


def f32(x): return struct.unpack('f', struct.pack('f', float(x)))[0]


def fit(F, F0, lo, hi, n, m=300, rnd=None):
    rnd = rnd or f32
    hi0 = rnd(F0); lo0 = rnd(F0 - mpf(hi0)); C0 = mpf(hi0) + mpf(lo0)
    pts = [(lo + hi) / 2 + (hi - lo) / 2 * cos(pi * (i + mpf(1) / 2) / m) for i in range(m)]
    data = [(v, F(v)) for v in pts]
    fixed = []
    for k in range(n):
        free = n - k
        rows = []; rhs = []
        for v, f in data:
            base = C0 + sum(mpf(c) * v**(j + 1) for j, c in enumerate(fixed))
            rows.append([v**(k + j + 1) / f for j in range(free)])
            rhs.append((f - base) / f)
        A = matrix(rows); b = matrix(rhs)
        sol = lu_solve(A.T * A, A.T * b)
        fixed.append(rnd(sol[0]))
    return hi0, lo0, fixed


def at(fc, v):
    """`(c0_hi + c0_lo + v Q(v), Q(v))` of a rounded fit `fc = (hi, lo, Q ascending)`, exactly."""
    hi0, lo0, q = fc
    Q = sum(mpf(ci) * v**j for j, ci in enumerate(q))
    return mpf(hi0) + mpf(lo0) + v * Q, Q


def check(F, fc, lo, hi, m):
    """A rounded fit `fc` of `F` on `m + 1` even points of `[lo, hi]` (zero skipped): its worst
    relative error, a conditioning figure (the largest `sum |q_j v^(j+1)| / |F|`) and the
    largest `|v Q(v) / F|` (what the kernels round besides the last addition; 0 when `c0_hi`
    is 0)."""
    hi0, lo0, q = fc
    worst = 0; cond = 0; tail = 0
    for i in range(m + 1):
        v = lo + (hi - lo) * mpf(i) / m
        if v == 0: continue
        p, Q = at(fc, v)
        f = F(v)
        worst = max(worst, abs((p - f) / f))
        cond = max(cond, sum(abs(mpf(ci) * v**(j+1)) for j, ci in enumerate(q)) / abs(f))
        if hi0 != 0: tail = max(tail, abs(v * Q / f))
    return float(worst), float(cond), float(tail)
