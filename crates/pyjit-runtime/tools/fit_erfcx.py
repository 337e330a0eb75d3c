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
