"""Generates cases.tsv: CPython 3.11's results for every scalar operator and `math` function of
the language over a table of edge cases (signed zeros, infinities, NaN, subnormals, huge values,
int64 extremes, negative divisors).

Run with plain CPython 3.11 (no third-party packages):  python3 tests/oracle/scalar/gen.py

The language's `int` is a wrapping 64-bit integer (LANGUAGE.md), so where CPython's exact int
result does not fit, the expected value is CPython's reduced modulo 2**64, and a float converted
to an int that does not fit raises the language's OverflowError. A negative float raised to a
fractional power is a complex number in CPython; the language has none and raises ValueError.
Those are the only departures from CPython and each is applied below by name.

Output format (tab-separated, one case a line; lines starting with '#' describe ops):
    #op NAME PARAMS RESULT LAYERS TEMPLATE
    NAME ARG... EXPECTED
where a value is i:DECIMAL, f:HEX64 (the IEEE bits), b:0|1, s:ESCAPED-TEXT, and EXPECTED is a
value or e:CLASS:MESSAGE. LAYERS says which layers must agree: d (pyjit-value directly),
c (the constant folder), s (script: interpreter and native), e (eager evaluator).
"""

import math
import os
import struct
import sys

I64 = 2**63
INT_OVERFLOW = ("OverflowError", "int too large to convert to a 64-bit int")
COMPLEX = ("ValueError", "a negative number cannot be raised to a fractional power")


def wrap(i):
    return ((i + I64) % 2**64) - I64


INTS = [0, 1, -1, 2, -2, 3, -3, 7, -7, 10, -10, 63, 64, 65, 100, 2**31, 2**32 + 1,
        2**53 + 1, -(2**53 + 1), 2**62, 2**63 - 1, -2**63, -2**63 + 1, 123456789012345]
SMALL_INTS = [0, 1, -1, 2, -2, 3, -3, 7, -7, 10, 63, 64, 65, 2**63 - 1, -2**63]
FLOATS = [0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 1.5, 2.0, -2.0, 2.5, 3.0, 7.5, -7.5, 0.1, 2.675,
          1e-310, -1e-310, 5e-324, 2.2250738585072014e-308, 1e16, 1e300, -1e300,
          1.7976931348623157e308, 9007199254740993.0, 4503599627370497.5, math.pi, 710.0,
          -745.5, 1e22, 9.3e18, -9.3e18, math.inf, -math.inf, math.nan]
# Binary float operators: a smaller table (its square is the case count).
BIN_FLOATS = [0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 3.0, 7.5, -7.5, 0.1, 1e-310,
              5e-324, 1e300, -1e300, 1.7976931348623157e308, 1e16, math.pi, math.inf,
              -math.inf, math.nan]
NDIGITS = [-400, -308, -23, -22, -20, -3, -2, -1, 0, 1, 2, 3, 10, 17, 300, 400]
ROUND_FLOATS = FLOATS + [0.125, 0.375, 1234.5, 1250.0, 2500.0, 500.0, 501.0, 5e22, 5.5e22,
                         -0.4, 0.5e-5, 123.456, 1.005, 2.5e-300]


def enc(v):
    if isinstance(v, bool):
        return "b:%d" % v
    if isinstance(v, int):
        return "i:%d" % v
    if isinstance(v, float):
        return "f:%016x" % struct.unpack("<Q", struct.pack("<d", v))[0]
    if isinstance(v, str):
        return "s:" + v.encode("unicode_escape").decode("ascii").replace("\t", "\\t")
    raise TypeError(v)


def run(fn, *args):
    try:
        r = fn(*args)
    except Exception as e:  # noqa: BLE001 - every exception is an expected outcome
        return "e:%s:%s" % (type(e).__name__, e)
    if isinstance(r, complex):
        return "e:%s:%s" % COMPLEX
    if isinstance(r, int) and not isinstance(r, bool):
        r = wrap(r)
    return enc(r)


def to_int(r):
    """A float -> int conversion of the language: OverflowError outside int64."""
    if isinstance(r, int) and not -I64 <= r < I64:
        raise OverflowError(INT_OVERFLOW[1])
    return r


def shl(a, b):
    if b < 0:
        raise ValueError("negative shift count")
    return a << min(b, 128)


def shr(a, b):
    if b < 0:
        raise ValueError("negative shift count")
    return a >> min(b, 128)


def float_pow(a, b):
    if a < 0 and math.isfinite(a) and math.isfinite(b) and b != math.floor(b):
        raise ValueError(COMPLEX[1])
    return a ** b


def int_pow(a, b):
    # Only non-negative exponents are an int op (a negative one is a float power).
    return pow(a, b, 2**64)


OPS = []


def op(name, params, result, layers, template, fn, cases):
    OPS.append((name, params, result, layers, template, fn, cases))


def pairs(xs, ys=None):
    ys = xs if ys is None else ys
    return [(a, b) for a in xs for b in ys]


ALL = "dcse"
for name, sym, fn in [
    ("add", "+", lambda a, b: a + b), ("sub", "-", lambda a, b: a - b),
    ("mul", "*", lambda a, b: a * b), ("floordiv", "//", lambda a, b: a // b),
    ("mod", "%", lambda a, b: a % b), ("and", "&", lambda a, b: a & b),
    ("or", "|", lambda a, b: a | b), ("xor", "^", lambda a, b: a ^ b),
]:
    op("int." + name, "int,int", "int", ALL, "a %s b" % sym, fn, pairs(INTS))
op("int.shl", "int,int", "int", ALL, "a << b", shl, pairs(SMALL_INTS, [-1, 0, 1, 2, 31, 62, 63, 64, 65, 100, 2**63 - 1]))
op("int.shr", "int,int", "int", ALL, "a >> b", shr, pairs(SMALL_INTS, [-1, 0, 1, 2, 31, 62, 63, 64, 65, 100, 2**63 - 1]))
op("int.pow", "int,int", "int", ALL, "a ** b", int_pow, pairs(SMALL_INTS, [0, 1, 2, 3, 10, 62, 63, 64, 65, 2**62 + 1, 2**63 - 1]))
# `int ** negative int` is a float power in CPython: the eager evaluator computes it; scripted
# code cannot (its static result type is int).
op("py.int_pow_negative", "int,int", "float", "de", "a ** b", lambda a, b: a ** b, pairs(SMALL_INTS, [-1, -2, -3, -64]))
op("int.truediv", "int,int", "float", ALL, "a / b", lambda a, b: a / b, pairs(INTS))
op("int.neg", "int", "int", ALL, "-a", lambda a: -a, [(a,) for a in INTS])
op("int.invert", "int", "int", ALL, "~a", lambda a: ~a, [(a,) for a in INTS])
op("int.abs", "int", "int", ALL, "abs(a)", abs, [(a,) for a in INTS])
for name, sym in [("eq", "=="), ("ne", "!="), ("lt", "<"), ("le", "<="), ("gt", ">"), ("ge", ">=")]:
    f = eval("lambda a, b: a %s b" % sym)
    op("int." + name, "int,int", "bool", ALL, "a %s b" % sym, f, pairs(SMALL_INTS))
    op("float." + name, "float,float", "bool", ALL, "a %s b" % sym, f, pairs(BIN_FLOATS))

for name, sym, fn in [
    ("add", "+", lambda a, b: a + b), ("sub", "-", lambda a, b: a - b),
    ("mul", "*", lambda a, b: a * b), ("div", "/", lambda a, b: a / b),
    ("floordiv", "//", lambda a, b: a // b), ("mod", "%", lambda a, b: a % b),
    ("pow", "**", float_pow),
]:
    op("float." + name, "float,float", "float", ALL, "a %s b" % sym, fn, pairs(BIN_FLOATS))
op("float.neg", "float", "float", ALL, "-a", lambda a: -a, [(a,) for a in FLOATS])
op("float.abs", "float", "float", ALL, "abs(a)", abs, [(a,) for a in FLOATS])
op("float.to_int", "float", "int", ALL, "int(a)", lambda a: to_int(int(a)), [(a,) for a in FLOATS])
op("int.to_float", "int", "float", ALL, "float(a)", float, [(a,) for a in INTS])
op("float.to_bool", "float", "bool", ALL, "bool(a)", bool, [(a,) for a in FLOATS])
op("int.to_bool", "int", "bool", ALL, "bool(a)", bool, [(a,) for a in SMALL_INTS])
op("round", "float", "int", ALL, "round(a)", lambda a: to_int(round(a)), [(a,) for a in ROUND_FLOATS])
op("py.round_ndigits", "float,int", "float", "de", "round(a, b)", round, pairs(ROUND_FLOATS, NDIGITS))
op("py.round_int_ndigits", "int,int", "int", "de", "round(a, b)", round, pairs(INTS, [-20, -19, -18, -3, -2, -1, 0, 1, 5]))

UNARY = ["sqrt", "exp", "expm1", "log", "log1p", "log2", "log10", "sin", "cos", "tan", "asin",
         "acos", "atan", "sinh", "cosh", "tanh", "erf", "erfc", "fabs", "isnan", "isinf",
         "isfinite"]
for name in UNARY:
    f = getattr(math, name)
    result = "bool" if name.startswith("is") else "float"
    op("math." + name, "float", result, ALL, "math.%s(a)" % name, f, [(a,) for a in FLOATS])
for name in ["floor", "ceil", "trunc"]:
    f = getattr(math, name)
    op("math." + name, "float", "int", ALL, "math.%s(a)" % name, (lambda f: lambda a: to_int(f(a)))(f), [(a,) for a in FLOATS])
for name in ["pow", "atan2", "fmod", "copysign"]:
    op("math." + name, "float,float", "float", ALL, "math.%s(a, b)" % name, getattr(math, name), pairs(BIN_FLOATS))
op("py.math_log_base", "float,float", "float", "dse", "math.log(a, b)", math.log, pairs(BIN_FLOATS))
op("py.math_hypot", "float,float", "float", "de", "math.hypot(a, b)", math.hypot, pairs(BIN_FLOATS))
op("py.math_isclose", "float,float", "bool", "de", "math.isclose(a, b)", math.isclose, pairs(BIN_FLOATS + [1.0 + 1e-10, 1.0 + 1e-8]))
op("py.math_degrees", "float", "float", "de", "math.degrees(a)", math.degrees, [(a,) for a in FLOATS])
op("py.math_radians", "float", "float", "de", "math.radians(a)", math.radians, [(a,) for a in FLOATS])
op("py.math_gcd", "int,int", "int", "de", "math.gcd(a, b)", math.gcd, pairs(INTS))
op("py.math_factorial", "int", "int", "de", "math.factorial(a)", math.factorial, [(a,) for a in [-2, -1, 0, 1, 2, 5, 20, 21, 25, 65, 66, 67, 100]])
op("py.str_float", "float", "str", "de", "str(a)", str, [(a,) for a in ROUND_FLOATS])


def main():
    if sys.version_info[:2] != (3, 11):
        sys.exit("run with CPython 3.11 (the language's reference), not %s" % sys.version)
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cases.tsv")
    lines = ["# generated by gen.py with CPython %s; do not edit" % sys.version.split()[0]]
    n = 0
    for name, params, result, layers, template, fn, cases in OPS:
        lines.append("\t".join(["#op", name, params, result, layers, template]))
        for args in cases:
            lines.append("\t".join([name] + [enc(a) for a in args] + [run(fn, *args)]))
            n += 1
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("wrote %d cases of %d ops to %s" % (n, len(OPS), os.path.relpath(out)))


if __name__ == "__main__":
    main()
