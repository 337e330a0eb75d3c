"""True ulp error of float64 pow (`pow_f64`, both flavours) and of glibc's pow, against mpmath
at 40 digits, on the samples the ignored test `pow_f64_samples_for_mpmath` writes (`x y fma
plain` as hex bits; see `pow_f64_pairs` in vmath_tests.rs for what they cover).

    PYJIT_POW_SAMPLES="$PWD/target/pow.txt" PYJIT_POW_N=50000 cargo test --release -p pyjit-runtime \
        --lib pow_f64_samples_for_mpmath -- --ignored
    python3 crates/pyjit-runtime/tools/pow_f64_ulp_mpmath.py target/pow.txt
"""
import math
import struct
import sys

from mpmath import mp, mpf

mp.dps = 40
OVERFLOW = mpf(2) ** 1024 * (1 - mpf(2) ** -54)


def f(h):
    return struct.unpack("<d", struct.pack("<Q", int(h, 16)))[0]


def ulp_err(y, ref):
    """Error of the float64 `y` in ulps of the true value `ref` (subnormal ulps below 2^-1022;
    a result past f64::MAX compares as MAX + 1 ulp, so a wrong infinity counts)."""
    if math.isnan(y):
        return float("inf")
    big = mpf(2) ** 1024
    yv = mpf(y) if not math.isinf(y) else math.copysign(1, y) * big
    if ref == 0:
        return 0.0 if y == 0 else float("inf")
    e = int(mp.floor(mp.log(abs(ref), 2)))
    return float(abs(yv - ref) / mpf(2) ** (max(min(e, 1023), -1022) - 52))


def main():
    path = sys.argv[1]
    worst = {"fma": (0.0, None), "plain": (0.0, None), "glibc": (0.0, None)}
    n = 0
    for line in open(path):
        hx, hy, ha, hb = line.split()
        x, y = f(hx), f(hy)
        if math.isnan(x) or math.isnan(y) or math.isinf(x) or math.isinf(y):
            continue
        if x < 0 and y != int(y):
            continue
        if x == 0:
            continue
        ref = mpf(x) ** mpf(y)
        n += 1
        for name, got in (("fma", f(ha)), ("plain", f(hb)), ("glibc", None)):
            if got is None:
                try:
                    got = math.pow(x, y)
                except OverflowError:
                    got = math.copysign(math.inf, ref)
            if abs(ref) >= OVERFLOW:
                # Rounds to infinity: the result must be that infinity.
                e = 0.0 if math.isinf(got) and (got > 0) == (ref > 0) else float("inf")
            else:
                e = ulp_err(got, ref)
            if e > worst[name][0]:
                worst[name] = (e, (x, y, got))
    print(f"{n} pairs (finite, real results)")
    for name, (e, at) in worst.items():
        print(f"{name:6s} max {e:.4f} ulp at {at}")


main()
