"""Fusion on and off, side by side in one run (docs/fusion.md).

    python benches/fusion_bench.py workloads [--only a,b] [--repeat N]
    python benches/fusion_bench.py programs [--only prefix,...] [--repeat N] [--instructions]

`workloads` times the peerbench workloads (`$PYJIT_PEERBENCH/workloads`, default
`../shared/peerbench` beside the checkout) with `pyjit bench` at -O2 (fusion on: `fuse` is its last
pass) and at -O2 with `--opt-limit fuse=0` (fusion off), and numpy's twin when numpy is
importable. Inputs come from the
workloads' `cases.py` when numpy is importable; otherwise from Python's `random.gauss` with the
same shapes, scales and shifts (same sizes and trip counts, other values).

`programs` times the first non-raising case of every program of `tests/programs/` both ways and
prints the ratio fused / unfused for each program whose optimized IR holds a `fused` op (the
others compile to the same code either way and are counted). With `--instructions` it counts
instructions per call instead of timing (valgrind's callgrind, collecting only inside
`Program::call_with_output`; the count of `--repeat` calls subtracted from that of twice as many,
so compiling and the first calls drop out): on a small program that is all CPU work, and it does
not depend on what else the machine runs.

Each pair of measurements is taken in alternation (off, on, off, on) and the minimum per side is
reported, so that load from other processes on the machine shifts both sides alike. The pyjit
binary is `$CARGO_TARGET_DIR/release/pyjit` (default `target/release/pyjit`); build it first with
`cargo build --release -p pyjit-cli`. Numbers are only comparable within one run.
"""

import argparse
import json
import math
import os
import random
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = Path(os.environ.get("PYJIT_PEERBENCH", ROOT.parent / "shared" / "peerbench"))
TARGET = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
PYJIT = TARGET / "release" / "pyjit"
# -O2 ends with `fuse` (docs/passes.md): fusion on; `--opt-limit fuse=0` applies none of its
# rewrites: fusion off, every other pass the same.
OFF = ["--opt-limit", "fuse=0"]
ON = []

# workload, case, arguments: (shape, scale, shift) of a float32 tensor, or a Python scalar
WORKLOADS = [
    ("elementwise_chain", "4M", [((4_000_000,), 1.0, 0.0), ((4_000_000,), 1.0, 0.0)]),
    ("elementwise_chain", "1k", [((1_000,), 1.0, 0.0), ((1_000,), 1.0, 0.0)]),
    ("iterate", "100k,n=50", [((100_000,), 1.0, 0.0), 50]),
    ("conditional_op", "1M", [((1_000_000,), 1.0, 0.05), 0.0]),
    ("converge", "100k", [((100_000,), 1000.0, 0.0)]),
    ("softmax_rows", "4096x1024", [((4096, 1024), 3.0, 0.0)]),
]


def write_npy(path, shape, data):
    """A float32 .npy file (format 1.0) from a flat list of floats."""
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % (
        "".join(f"{d}," for d in shape)
    )
    pad = 64 - (10 + len(header) + 1) % 64
    header = header + " " * pad + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack(f"<{len(data)}f", *data))


def make_inputs(workload, case, spec, d):
    """ARG words for `pyjit bench`, and the numpy arguments (None without numpy)."""
    try:
        import numpy as np

        sys.path.insert(0, str(BENCH / "workloads"))
        import cases

        args = cases.CASES[workload][case]()
    except ImportError:
        np, args = None, None
    words = []
    rng = random.Random(0)
    for k, s in enumerate(spec):
        if not isinstance(s, tuple):
            words.append(str(args[k] if args is not None else s))
            continue
        path = Path(d) / f"{workload}_{case.replace(',', '_')}_{k}.npy"
        if args is not None:
            np.save(path, args[k])
        else:
            shape, scale, shift = s
            n = math.prod(shape)
            write_npy(path, shape, [rng.gauss(0.0, 1.0) * scale + shift for _ in range(n)])
        words.append(str(path))
    return words, args


def pyjit_bench(file, fn, words, extra, repeat, cwd=None):
    cmd = [str(PYJIT), "bench", str(file), "-f", fn, *words, "--json", "--repeat", str(repeat),
           "--warmup", str(max(1, repeat // 10)), *extra]
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd)
    if r.returncode != 0:
        return None, r.stderr.strip().splitlines()[-1:] or [f"exit {r.returncode}"]
    return json.loads(r.stdout.strip().splitlines()[-1])["min_ns"], None


def alternate(file, fn, words, repeat, rounds, cwd=None):
    """(min ns fusion off, min ns fusion on, error) over `rounds` alternating measurements."""
    off, on = [], []
    for _ in range(rounds):
        for side, extra in ((off, OFF), (on, ON)):
            t, err = pyjit_bench(file, fn, words, extra, repeat, cwd)
            if err:
                return None, None, err
            side.append(t)
    return min(off), min(on), None


def numpy_time(workload, args, repeat):
    sys.path.insert(0, str(BENCH / "workloads"))
    mod = __import__(f"{workload}_np")
    f = getattr(mod, workload)
    f(*args)
    best = math.inf
    for _ in range(repeat):
        t = time.perf_counter_ns()
        f(*args)
        best = min(best, time.perf_counter_ns() - t)
    return best


def fmt(ns):
    return "-" if ns is None else f"{ns / 1e6:.4g} ms"


def workloads(opts):
    print("| workload | numpy | pyjit unfused | pyjit fused | fused / unfused |")
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as d:
        for workload, case, spec in WORKLOADS:
            if opts.only and workload not in opts.only.split(","):
                continue
            words, args = make_inputs(workload, case, spec, d)
            file = BENCH / "workloads" / f"{workload}.py"
            off, on, err = alternate(file, workload, words, opts.repeat, opts.rounds)
            np_ns = numpy_time(workload, args, opts.repeat) if args is not None else None
            if err:
                print(f"| {workload} {case} | {fmt(np_ns)} | error: {err[0]} | | |")
                continue
            print(f"| {workload} {case} | {fmt(np_ns)} | {fmt(off)} | {fmt(on)} | {on / off:.3f} |")
            sys.stdout.flush()


def first_case(program):
    cases = ROOT / "tests" / "programs" / f"{program}.cases"
    for c in sorted(cases.iterdir(), key=lambda p: int(p.name) if p.name.isdigit() else 0):
        if (c / "args.txt").exists() and not (c / "error.txt").exists():
            return c
    return None


def instructions(file, fn, words, extra, calls, cwd):
    """(instructions per call, error) of `pyjit bench` under callgrind (see the module doc)."""
    counts = []
    for n in (calls, 2 * calls):
        with tempfile.TemporaryDirectory() as d:
            out = Path(d) / "callgrind.out"
            cmd = ["valgrind", "--tool=callgrind", "--toggle-collect=*Program::call_with_output*",
                   f"--callgrind-out-file={out}", str(PYJIT), "bench", str(file), "-f", fn, *words,
                   "--json", "--repeat", str(n), "--warmup", "0", *extra]
            r = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd)
            if r.returncode != 0:
                return None, r.stderr.strip().splitlines()[-1:] or [f"exit {r.returncode}"]
            total = [ln for ln in out.read_text().splitlines() if ln.startswith("summary:")]
            counts.append(int(total[0].split()[1]))
    return (counts[1] - counts[0]) / calls, None


def has_fused(file, fn, words, cwd):
    cmd = [str(PYJIT), "compile", str(file), "-f", fn, *words, "--emit", "ir", *ON]
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd)
    return r.returncode == 0 and " fused" in r.stdout


def programs(opts):
    """Programs whose optimized IR has a `fused` op are timed both ways; the others compile to
    the same code with and without fusion and are only counted."""
    ratios, same = [], []
    unit = "instructions per call" if opts.instructions else "time per call"
    print(f"| program ({unit}) | unfused | fused | fused / unfused |")
    print("|---|---|---|---|")
    for py in sorted((ROOT / "tests" / "programs").glob("*.py")):
        name = py.stem
        if opts.only and not any(name.startswith(p) for p in opts.only.split(",")):
            continue
        case = first_case(name)
        if case is None:
            continue
        fn, *words = (case / "args.txt").read_text().split()
        if not has_fused(py, fn, words, case):
            same.append(name)
            continue
        if opts.instructions:
            off, err = instructions(py, fn, words, OFF, opts.repeat, case)
            on, err = (None, err) if err else instructions(py, fn, words, ON, opts.repeat, case)
            show = lambda x: f"{x:,.0f}"
        else:
            off, on, err = alternate(py, fn, words, opts.repeat, opts.rounds, cwd=case)
            show = fmt
        if err:
            print(f"| {name} | error: {err[0]} | | |")
            continue
        ratios.append((on / off, name))
        print(f"| {name} | {show(off)} | {show(on)} | {on / off:.3f} |")
        sys.stdout.flush()
    print(f"\n{len(same)} programs have no fused group (the same code either way)")
    if ratios:
        ratios.sort()
        print(f"{len(ratios)} programs with fused groups; fused / unfused: min {ratios[0][0]:.3f} "
              f"({ratios[0][1]}), median {ratios[len(ratios) // 2][0]:.3f}, "
              f"max {ratios[-1][0]:.3f} ({ratios[-1][1]})")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=["workloads", "programs"])
    ap.add_argument("--only", default="")
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--instructions", action="store_true",
                    help="programs: count instructions per call under callgrind instead of timing")
    opts = ap.parse_args()
    if not PYJIT.exists():
        sys.exit(f"{PYJIT} not found: cargo build --release -p pyjit-cli")
    workloads(opts) if opts.what == "workloads" else programs(opts)


if __name__ == "__main__":
    main()
