"""Times `numba.njit` on a peerbench NumPy twin, to put beside `pyjit bench` in one run:

    PYJIT_PEERBENCH=.../peerbench python benches/numba_njit.py mandelbrot 200 100
    PYJIT_PEERBENCH=.../peerbench python benches/numba_njit.py scalar_loop 1000000
    PYJIT_PEERBENCH=.../peerbench python benches/numba_njit.py mandelbrot 200 100 --asm
    PYJIT_PEERBENCH=.../peerbench python benches/numba_njit.py \
        elementwise_chain_loops --case elementwise_chain:1k --save DIR

A function name is looked up in `workloads/NAME_np.py`, or, for the other functions of a file
(`elementwise_chain_loops`, `softmax_rows_loops`), in the file its `--case` names. Integer ARGs
are passed as they are; `--case WORKLOAD:CASE` passes the inputs `workloads/cases.py` builds
instead, and `--save DIR` writes them to `DIR/argN.npy` (scalars as ARG text in `DIR/args.txt`)
for `pyjit bench`. Reports the minimum and the median of the timed calls (after one compiling
call), as `pyjit bench` does; `--asm` prints numba's machine code instead (`inspect_asm`).
"""

import importlib.util
import os
import statistics
import sys
import time
from pathlib import Path

import numba
import numpy as np


def option(name):
    if name in sys.argv:
        i = sys.argv.index(name)
        return sys.argv[i + 1] if i + 1 < len(sys.argv) else None
    return None


def main():
    valued = {option("--case"), option("--save")}
    args = [a for a in sys.argv[1:] if not a.startswith("--") and a not in valued]
    name = args[0]
    root = Path(os.environ["PYJIT_PEERBENCH"]) / "workloads"
    case = option("--case")
    if case:
        workload, case_name = case.split(":", 1)
        sys.path.insert(0, str(root))
        import cases

        params = list(cases.CASES[workload][case_name]())
    else:
        workload, params = name, [int(a) for a in args[1:]]
    spec = importlib.util.spec_from_file_location(workload, root / f"{workload}_np.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    save = option("--save")
    if save:
        words = []
        for i, p in enumerate(params):
            if isinstance(p, np.ndarray):
                np.save(Path(save) / f"arg{i}.npy", p)
                words.append(f"arg{i}.npy")
            else:
                words.append(repr(p))
        (Path(save) / "args.txt").write_text(" ".join(words) + "\n")
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
    label = case or ", ".join(str(p) for p in params)
    print(
        f"numba {name}({label}): min {min(times) * 1e3:.3f} ms, "
        f"median {statistics.median(times) * 1e3:.3f} ms over {len(times)} calls"
    )


if __name__ == "__main__":
    main()
