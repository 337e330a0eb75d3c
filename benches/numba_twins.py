"""pyjit.script against numba.njit on every function of the peerbench NumPy twins, in one process.

Usage (from the repository root; needs numpy, numba and the pyjit package):
    PYTHONPATH=crates/pyjit-py/python PYJIT_PEERBENCH=<peerbench dir> \
        python benches/numba_twins.py [WORKLOAD ...]

For each function of `$PYJIT_PEERBENCH/workloads/<workload>_np.py` whose name starts with the
workload's, and each primary case of `cases.PRIMARY`: compiles it unmodified with both, checks
that the results agree (rtol 1e-4), then alternates the two five times, each time the median of
a block of calls sized to ~30 ms, and prints the medians of the five and their ratio. Functions
numba does not compile are skipped. Timings come from this process only: compare within a run.
Runs with peerbench's malloc settings (re-executes itself with them, as python_peers.py does).
"""
import importlib
import os
import sys
import time

from peerbench_env import MALLOC_ENV

# peerbench's allocator settings, as benches/python_peers.py runs every peer (both sides of
# each pair get them); before anything allocates much.
if any(os.environ.get(k) != v for k, v in MALLOC_ENV.items()):
    os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, **MALLOC_ENV})


# Seconds to wait before each block of calls, so that no library's worker thread is still
# busy-waiting from the block before: after a matrix product NumPy's (and so numba's) OpenBLAS
# keeps one worker spinning for about 0.1 s (a whole CPU of the two: ~10 ticks of CPU time
# within 0.1 s of each `@`, measured from /proc on 6 Dec 2026); pyjit's helper spins 200 us.
SETTLE = 0.25


def median_ns(f, args, reps):
    s = []
    for _ in range(reps):
        t = time.perf_counter_ns()
        f(*args)
        s.append(time.perf_counter_ns() - t)
    s.sort()
    return s[len(s) // 2]


def main():
    sys.path.insert(0, os.path.join(os.environ["PYJIT_PEERBENCH"], "workloads"))
    import numba
    import numpy as np

    import pyjit
    from cases import CASES, PRIMARY

    chosen = sys.argv[1:]
    print("| function | case | pyjit µs | numba µs | pyjit / numba |")
    print("|---|---|---:|---:|---:|")
    for wl, cases in PRIMARY.items():
        if chosen and wl not in chosen:
            continue
        mod = importlib.import_module(wl + "_np")
        for name in sorted(n for n in dir(mod) if n.startswith(wl)):
            fn = getattr(mod, name)
            if not callable(fn):
                continue
            for case in cases:
                args = CASES[wl][case]()
                try:
                    nb = numba.njit(fn)
                    want = nb(*args)
                except Exception as e:  # numba's own limits (e.g. keepdims)
                    print(f"| {name} | {case} | | | numba: {type(e).__name__} |")
                    continue
                pj = pyjit.script(fn)
                got = pj(*args)
                if not np.allclose(np.asarray(got, np.float64), np.asarray(want, np.float64),
                                   rtol=1e-4, atol=1e-5):
                    print(f"| {name} | {case} | | | results differ |")
                    continue
                t0 = time.perf_counter_ns()
                pj(*args)
                once = max(time.perf_counter_ns() - t0, 1)
                reps = int(min(max(3e7 / once, 5), 2000))
                a, b = [], []
                for _ in range(5):
                    time.sleep(SETTLE)
                    a.append(median_ns(pj, args, reps))
                    time.sleep(SETTLE)
                    b.append(median_ns(nb, args, reps))
                a.sort()
                b.sort()
                print(f"| {name} | {case} | {a[2] / 1e3:.1f} | {b[2] / 1e3:.1f} | {a[2] / b[2]:.2f} |",
                      flush=True)


if __name__ == "__main__":
    main()
