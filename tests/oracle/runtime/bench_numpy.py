"""NumPy timings for the same cases as benches/benches/runtime.rs (median of repeats, in µs).

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python3 tests/oracle/runtime/bench_numpy.py
"""

import timeit

import numpy as np


def data(n, dtype):
    i = np.arange(n, dtype=np.int64)
    return (((i * 7919) % 1000) / 100.0 - 5.0).astype(dtype)


def t(stmt, number):
    runs = timeit.repeat(stmt, number=number, repeat=7)
    return min(runs) / number * 1e6


rows = []
for n in (1000, 4_000_000):
    num = 20000 if n == 1000 else 20
    a, b = data(n, np.float32), data(n, np.float32)
    ai = data(n, np.int64)
    r = a.reshape(-1, 1000)
    row = b[:1000]
    rows += [
        (f"elementwise/add_f32/{n}", t(lambda: a + b, num)),
        (f"elementwise/mul_scalar_f32/{n}", t(lambda: a * np.float32(2.0), num)),
        (f"elementwise/exp_f32/{n}", t(lambda: np.exp(a), num)),
        (f"elementwise/add_broadcast_f32/{n}", t(lambda: r + row, num)),
        (f"elementwise/floor_divide_i64/{n}", t(lambda: ai // 3, num)),
        (f"reduction/sum_f32/{n}", t(lambda: a.sum(), num)),
        (f"reduction/max_f32/{n}", t(lambda: a.max(), num)),
        (f"reduction/sum_rows_f32/{n}", t(lambda: r.sum(axis=1), num)),
        (
            f"reduction/softmax_rows_f32/{n}",
            t(lambda: (lambda e: e / e.sum(axis=1, keepdims=True))(np.exp(r - r.max(axis=1, keepdims=True))), num),
        ),
    ]
for dt in (np.float32, np.float64):
    a = data(512 * 1024, dt).reshape(512, 1024)
    b = data(1024 * 512, dt).reshape(1024, 512)
    rows.append((f"matmul/512x1024x512/{np.dtype(dt).name}", t(lambda: a @ b, 5)))

for name, us in rows:
    print(f"{name:45s} {us:12.2f} us")
