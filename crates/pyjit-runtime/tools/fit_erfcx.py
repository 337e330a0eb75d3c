"""Fits erfcx(x) = exp(x^2) erfc(x) on [X0, X1] with a Chebyshev series in t = (x - K)/(x + K)
(Weideman's variable, in which erfcx is smooth) and prints the coefficients for
src/ops/vmath.rs (`ERFCX_CHEB`). Needs mpmath. Run: python tools/fit_erfcx.py"""
import mpmath as mp

mp.mp.dps = 40
X0, X1, K, DEG = 0.5, 11.0, 3.0, 17
T0, T1 = (X0 - K) / (X0 + K), (X1 - K) / (X1 + K)


def f_of_u(u):  # u in [-1, 1] -> erfcx at the matching x
    t = (mp.mpf(u) * (T1 - T0) + (T1 + T0)) / 2
    x = K * (1 + t) / (1 - t)
    return mp.exp(x * x) * mp.erfc(x)


n = DEG + 1
nodes = [mp.cos(mp.pi * (k + mp.mpf(1) / 2) / n) for k in range(n)]
vals = [f_of_u(u) for u in nodes]
coef = []
for j in range(n):
    s = sum(vals[k] * mp.cos(mp.pi * j * (k + mp.mpf(1) / 2) / n) for k in range(n))
    coef.append(s * 2 / n)
coef[0] /= 2


def clenshaw(c, u):
    b1 = b2 = 0.0
    for a in reversed(c[1:]):
        b1, b2 = 2 * u * b1 - b2 + a, b1
    return u * b1 - b2 + c[0]


cf = [float(c) for c in coef]
worst = 0.0
import random

random.seed(1)
for i in range(6000):
    x = X0 + (X1 - X0) * i / 5999
    t = (x - K) / (x + K)
    u = (2 * t - (T1 + T0)) / (T1 - T0)
    ref = mp.exp(mp.mpf(x) ** 2) * mp.erfc(mp.mpf(x))
    worst = max(worst, abs(float((clenshaw(cf, u) - ref) / ref)))
print(f"// X0={X0} X1={X1} K={K} degree={DEG}: max relative error {worst:.3e}")
print(f"// T0={float(T0)!r} T1={float(T1)!r}")
for c in cf:
    print(f"    {c!r},")

# The float32 kernels sum the first TERMS_F32 terms only (`ERFCX_TERMS_F32`), as a polynomial in
# t itself (`ERFCX_T_POLY`, ascending powers, evaluated by Estrin's scheme: a short dependency
# chain instead of Clenshaw's eleven sequential steps): the truncated series is re-expanded
# exactly (mpmath) with u = (2t - (T1 + T0)) / (T1 - T0), then each coefficient rounded once.
TERMS_F32 = 12


def poly_mul(p, q):
    r = [mp.mpf(0)] * (len(p) + len(q) - 1)
    for i, a in enumerate(p):
        for j, b in enumerate(q):
            r[i + j] += a * b
    return r


def poly_add(p, q):
    n = max(len(p), len(q))
    return [(p[i] if i < len(p) else 0) + (q[i] if i < len(q) else 0) for i in range(n)]


u_of_t = [-(T1 + T0) / (T1 - T0), 2 / (T1 - T0)]  # ascending powers of t
cheb = [[mp.mpf(1)], u_of_t]  # T_0(u(t)), T_1(u(t))
while len(cheb) < TERMS_F32:
    cheb.append(poly_add(poly_mul([2 * c for c in u_of_t], cheb[-1]), [-c for c in cheb[-2]]))
tpoly = [mp.mpf(0)] * TERMS_F32
for c, tj in zip(cf[:TERMS_F32], cheb):
    for i, a in enumerate(tj):
        tpoly[i] += mp.mpf(c) * a
print(f"// ERFCX_T_POLY: the first {TERMS_F32} terms as ascending powers of t")
for c in tpoly:
    print(f"    {float(c)!r},")
