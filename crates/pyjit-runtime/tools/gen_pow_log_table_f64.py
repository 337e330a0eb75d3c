"""The table of float64 pow's logarithm (`POW_LOG_TABLE_F64` in vmath_trig.rs).

`x = 2^k z` with `z` in `[z0, 2 z0)`, `z0 = 181/256` (the bits of `x` minus those of `z0`: the
exponent field gives `k`, the top 7 mantissa bits the row `i`), so row `i` covers `z` from
`z0 + i 2^-8` (below 1) or `1 + (i - 75) 2^-7` (above): 75 rows of width 2^-8 below 1, 53 of
width 2^-7 above, and 1 is the boundary of rows 74 and 75. Each row holds `invc`, about 1 over
the row's midpoint with 8 significant bits (a multiple of 2^-7 in [1, 2), of 2^-8 in [1/2, 1)),
so that `r = z invc - 1` is a multiple of 2^-60 below 2^-7 in magnitude: exactly representable
(one FMA, or a split `z` without one); rows 74 and 75 have `invc = 1` (`log c = 0`, so that
no table term cancels against `r` near `x = 1`). `log c = -log(invc)` as a float64 pair
`hi + lo` (mpmath, 40 digits).

    python3 crates/pyjit-runtime/tools/gen_pow_log_table_f64.py > table.rs
"""
from fractions import Fraction as Fr

from mpmath import mp, mpf, log

mp.dps = 40

N = 128
ONE_ROWS = (74, 75)


def main():
    z0 = Fr(181, 256)
    rows = []
    worst = Fr(0)
    for i in range(N):
        if i < 75:
            lo, hi = z0 + Fr(i, 256), z0 + Fr(i + 1, 256)
        else:
            lo, hi = 1 + Fr(i - 75, 128), 1 + Fr(i - 74, 128)
        if i in ONE_ROWS:
            invc = Fr(1)
        else:
            v = 2 / (lo + hi)
            q = Fr(1, 128) if v >= 1 else Fr(1, 256)
            invc = round(v / q) * q
        # z below 1 (ulp 2^-53) with invc a multiple of 2^-7, or z from 1 (ulp 2^-52) with
        # invc a multiple of 2^-8: z invc is a multiple of 2^-60, and |r| < 2^-7 fits 53 bits.
        assert (hi <= 1 and (invc >= 1 or invc == 1)) or (lo >= 1 and invc <= 1), i
        # (`hi` itself belongs to the next row: |r| reaches 2^-7 only in the limit.)
        for z, strict in ((lo, True), (hi, False)):
            r = abs(z * invc - 1)
            assert r < Fr(1, 128) or (not strict and r == Fr(1, 128)), (i, float(r))
            worst = max(worst, r)
        l = -log(mpf(invc.numerator) / invc.denominator)
        h = float(l)
        t = float(l - mpf(h))
        rows.append((float(invc), h, t))
    print(f"// max |r| = {float(worst):.6g} (2^{float(log(mpf(worst.numerator) / worst.denominator, 2)):.3f})")
    print(f"pub(crate) const POW_LOG_TABLE_F64: [(f64, f64, f64); {N}] = [")
    for invc, h, t in rows:
        print(f"    ({invc!r}, {h!r}, {t!r}),")
    print("];")


main()
