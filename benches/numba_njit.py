"""Times `numba.njit` on a peerbench NumPy twin, to put beside `pyjit bench` in one run:

    PYJIT_PEERBENCH=.../peerbench python benches/numba_njit.py mandelbrot 200 100
    PYJIT_PEERBENCH=.../peerbench python benches/numba_njit.py scalar_loop 1000000
    PYJIT_PEERBENCH=.../peerbench python benches/numba_njit.py mandelbrot 200 100 --asm

Reports the minimum and the median of the timed calls (after one compiling call), as
`pyjit bench` does; `--asm` prints numba's machine code instead (`inspect_asm`).
"""

import importlib.util
import os
import statistics
import sys
import time
from pathlib import Path

import numba


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    name, params = args[0], [int(a) for a in args[1:]]
    root = Path(os.environ["PYJIT_PEERBENCH"]) / "workloads"
    spec = importlib.util.spec_from_file_location(name, root / f"{name}_np.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    f = numba.njit(getattr(mod, name))
    f(*params)
    if "--asm" in sys.argv:
        for text in f.inspect_asm().values():
            print(text)
        return
    times = []
    deadline = time.perf_counter() + 3.0
    while len(times) < 5 or (len(times) < 100 and time.perf_counter() < deadline):
        t = time.perf_counter()
        f(*params)
        times.append(time.perf_counter() - t)
    print(
        f"numba {name}{tuple(params)}: min {min(times) * 1e3:.3f} ms, "
        f"median {statistics.median(times) * 1e3:.3f} ms over {len(times)} calls"
    )


if __name__ == "__main__":
    main()
