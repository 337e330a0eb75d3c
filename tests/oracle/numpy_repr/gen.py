"""Generates cases.json: NumPy's repr and str of arrays (and the repr of the scalar a 0-d array
holds) over the dtypes the language has, for pyjit-runtime's `print_numpy` (the result display
of NumPy-style programs). Run with NumPy 2.x:  python tests/oracle/numpy_repr/gen.py

Each case: name, dtype, shape, the values in C order (floats as the hex of their float64 bits,
float32 values widened exactly; ints as numbers; bools as 0/1), and what NumPy printed:
`repr` (repr(a)), `str` (str(a)) and, for a 0-d array, `scalar_repr` (repr(a[()])).
"""

import json
import os
import struct

import numpy as np

rng = np.random.default_rng(20261204)
cases = []


def add(name, a):
    a = np.asarray(a)
    flat = a.reshape(-1)
    if a.dtype.kind == "f":
        values = [struct.pack(">d", float(x)).hex() for x in flat]
    elif a.dtype.kind == "b":
        values = [int(bool(x)) for x in flat]
    else:
        values = [int(x) for x in flat]
    case = {
        "name": name,
        "dtype": str(a.dtype),
        "shape": list(a.shape),
        "values": values,
        "repr": repr(a),
        "str": str(a),
    }
    if a.ndim == 0:
        case["scalar_repr"] = repr(a[()])
    cases.append(case)


nan, inf = float("nan"), float("inf")
for dt in ["float64", "float32"]:
    f = lambda v: np.array(v, dtype=dt)
    add(f"{dt} mixed widths", f([1.0, 2.5]))
    add(f"{dt} tenths", f([0.1, 0.2, 0.3]))
    add(f"{dt} thirds", f([1 / 3, 2 / 3, -1 / 3]))
    add(f"{dt} tiny and one", f([1e-5, 1.0]))
    add(f"{dt} tiny with digits", f([1.5e-5, 1.0, -2.25]))
    add(f"{dt} huge", f([1e8, 1.0]))
    add(f"{dt} just below 1e8", f([99999999.0, 1.5]))
    add(f"{dt} ratio 1000", f([1000.0, 1.0]))
    add(f"{dt} ratio above 1000", f([1000.5, 1.0]))
    add(f"{dt} 1e-4", f([1e-4, 0.5]))
    add(f"{dt} signed zeros", f([0.0, -0.0]))
    add(f"{dt} all zero 2x3", np.zeros((2, 3), dtype=dt))
    add(f"{dt} nan and one", f([nan, 1.0]))
    add(f"{dt} nan -inf 1.5", f([nan, -inf, 1.5]))
    add(f"{dt} inf only", f([inf, inf]))
    add(f"{dt} nan only", f([nan]))
    add(f"{dt} nan with tiny", f([nan, 1e-7, -inf]))
    add(f"{dt} 2**-9 tie", f([2.0**-9, 1.0]))
    add(f"{dt} extremes", f([1e30, 1e-30, -3e15]))
    add(f"{dt} sevenths 3x4", (np.arange(12).reshape(3, 4) / 7).astype(dt))
    add(f"{dt} 3-d", (np.arange(12).reshape(2, 2, 3) - 5.5).astype(dt))
    add(f"{dt} 4-d", (np.arange(16).reshape(2, 2, 2, 2) * 0.25).astype(dt))
    add(f"{dt} normal 5x5", rng.standard_normal((5, 5)).astype(dt))
    add(f"{dt} normal 40 wraps", rng.standard_normal(40).astype(dt))
    add(f"{dt} wide rows 4x20", rng.standard_normal((4, 20)).astype(dt))
    add(f"{dt} scales", (rng.standard_normal(12) * 10.0 ** rng.integers(-8, 9, 12)).astype(dt))
    add(f"{dt} exp3 digits", f([1e-300 if dt == "float64" else 1e-40, 1.0]))
    add(f"{dt} summarized 1-d", np.arange(1001, dtype=dt) / 3)
    add(f"{dt} summarized 2-d", rng.standard_normal((40, 30)).astype(dt))
    add(f"{dt} summarized 3-d", np.arange(2 * 30 * 20, dtype=dt).reshape(2, 30, 20))
    add(f"{dt} empty", np.zeros((0,), dtype=dt))
    add(f"{dt} empty 0x3", np.zeros((0, 3), dtype=dt))
    add(f"{dt} empty 2x0", np.zeros((2, 0), dtype=dt))
    add(f"{dt} integers", f([1.0, 2.0, 300.0]))
    add(f"{dt} 16777217", f([16777217.0, 0.5]))
    add(f"{dt} 1x1", f([[7.25]]))
    for v in [6.0, 0.1, 1e-4, 1e-5, 1e16, 1.5e16, -2.5, 0.0, -0.0, nan, inf, -inf, 123456.789, 1 / 3]:
        add(f"{dt} 0-d {v!r}", np.array(v, dtype=dt))

for dt in ["int64", "int32"]:
    i = lambda v: np.array(v, dtype=dt)
    add(f"{dt} small", i([1, 2, 3]))
    add(f"{dt} signs", i([-100, 5, 0]))
    add(f"{dt} extremes", i([np.iinfo(dt).min, np.iinfo(dt).max]))
    add(f"{dt} 2x3", i([[1, -22, 333], [4, 5, 6]]))
    add(f"{dt} summarized", np.arange(-500, 600, dtype=dt))
    add(f"{dt} wraps", np.arange(0, 10**6, 25000, dtype=dt))
    add(f"{dt} empty", np.zeros((0,), dtype=dt))
    add(f"{dt} 0-d", np.array(-7, dtype=dt))

add("bool mixed", np.array([True, False, True]))
add("bool all true", np.array([True, True]))
add("bool 2x2", np.array([[True, False], [False, False]]))
add("bool 0-d", np.array(True))
add("bool 0-d false", np.array(False))
add("bool empty", np.zeros((0,), dtype=bool))
add("bool summarized", np.arange(1200) % 3 == 0)

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cases.json")
with open(out, "w") as fh:
    json.dump({"numpy": np.__version__, "cases": cases}, fh, indent=0)
    fh.write("\n")
print(f"{len(cases)} cases from NumPy {np.__version__} -> {out}")
