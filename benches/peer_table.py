"""Side-by-side table of the runtime kernels against numpy and torch eager, in one run.

Usage (from the repository root; needs numpy and torch in the Python that runs it):
    python benches/peer_table.py [--threads 2] [--filter CASE]

It builds and runs the runtime's `kernel_table` example (cargo, release) for pyjit, then times the same cases
in numpy and in torch eager (torch.set_num_threads(--threads)), interleaving nothing and warming
each case up first; every number is a median per call (see crates/pyjit-runtime/examples/kernel_table.rs for
the method, which this script mirrors). The pyjit binary runs with PYJIT_NUM_THREADS=--threads.
Like peerbench, every process runs with MALLOC_MMAP_THRESHOLD_=32MiB and
MALLOC_TRIM_THRESHOLD_=1GiB unless --default-malloc is given.
"""
import argparse
import json
import os
import subprocess
import sys
import time

from peerbench_env import MALLOC_ENV


def data(np, n):
    i = np.arange(n, dtype=np.int64)
    return (((i * 7919) % 1000).astype(np.float32) / np.float32(100.0) - np.float32(5.0))


def positive(np, n):
    i = np.arange(n, dtype=np.int64)
    return (((i * 7919) % 1000).astype(np.float32) / np.float32(100.0) + np.float32(0.01))


def matrix(np, r, c):
    i = np.arange(r * c, dtype=np.int64)
    v = (((i * 7919) % 1000).astype(np.float32) / np.float32(1000.0) - np.float32(0.5)) * np.float32(0.1)
    return v.reshape(r, c)


def timeit(f):
    t0 = time.perf_counter_ns()
    f()
    once = max(time.perf_counter_ns() - t0, 50)
    batch = int(min(max(5e6 / once, 1), 100_000))
    samples = []
    start = time.perf_counter()
    while time.perf_counter() - start < 0.3 or len(samples) < 5:
        t = time.perf_counter_ns()
        for _ in range(batch):
            f()
        samples.append((time.perf_counter_ns() - t) / batch)
    samples.sort()
    return samples[len(samples) // 2]


MATMULS = [(64, 512, 1024), (64, 1024, 256), (1, 512, 1024), (1, 1024, 256), (32, 128, 128), (512, 512, 512)]


def peer_cases(np, torch):
    """(case, numpy callable or None, torch callable) in kernel_table's order."""
    # numpy has no erf, so its gelu (erf) cell stays empty.
    F = torch.nn.functional
    out = []
    for n in (1_000, 4_000_000):
        x, y, p = data(np, n), data(np, n), positive(np, n)
        rows = x.reshape(-1, 1000)
        tx, ty, tp = torch.from_numpy(x), torch.from_numpy(y), torch.from_numpy(p)
        trows = tx.reshape(-1, 1000)

        def np_softmax(r=rows):
            e = np.exp(r - r.max(axis=-1, keepdims=True))
            return e / e.sum(axis=-1, keepdims=True)

        def np_sigmoid(v=x):
            return 1.0 / (1.0 + np.exp(-v))

        def np_gelu_tanh(v=x):
            return 0.5 * v * (1.0 + np.tanh(np.float32(0.7978845608) * (v + np.float32(0.044715) * v * v * v)))

        out += [
            (f"tanh/{n}", lambda v=x: np.tanh(v), lambda v=tx: torch.tanh(v)),
            (f"gelu/{n}", None, lambda v=tx: F.gelu(v)),
            (f"gelu_tanh/{n}", np_gelu_tanh, lambda v=tx: F.gelu(v, approximate="tanh")),
            (f"sigmoid/{n}", np_sigmoid, lambda v=tx: torch.sigmoid(v)),
            (f"log/{n}", lambda v=p: np.log(v), lambda v=tp: torch.log(v)),
            (f"sum/{n}", lambda v=x: v.sum(), lambda v=tx: v.sum()),
            (f"softmax_rows1000/{n}", np_softmax, lambda v=trows: torch.softmax(v, -1)),
            (f"amax_rows1000/{n}", lambda r=rows: r.max(axis=-1), lambda v=trows: torch.amax(v, -1)),
            (f"exp/{n}", lambda v=x: np.exp(v), lambda v=tx: torch.exp(v)),
            (f"add/{n}", lambda a=x, b=y: a + b, lambda a=tx, b=ty: a + b),
            (f"mul_scalar/{n}", lambda a=x: a * np.float32(2.0), lambda a=tx: a * 2.0),
            (f"sqrt/{n}", lambda v=p: np.sqrt(v), lambda v=tp: torch.sqrt(v)),
            (f"sin/{n}", lambda v=x: np.sin(v), lambda v=tx: torch.sin(v)),
            (f"pow_scalar/{n}", lambda v=p: np.power(v, np.float32(1.5)), lambda v=tp: torch.pow(v, 1.5)),
        ]
    for m, k, n in MATMULS:
        a, b = matrix(np, m, k), matrix(np, k, n)
        ta, tb = torch.from_numpy(a), torch.from_numpy(b)
        out.append((f"matmul/{m}x{k}@{k}x{n}", lambda a=a, b=b: a @ b, lambda a=ta, b=tb: a @ b))
    return out


def run_peers(args):
    import numpy as np
    import torch

    torch.set_num_threads(args.threads)
    res = {}
    with torch.inference_mode():
        for case, fnp, ftorch in peer_cases(np, torch):
            if args.filter and args.filter not in case:
                continue
            res[case] = {
                "numpy": timeit(fnp) if fnp else None,
                "torch": timeit(ftorch),
            }
    print(json.dumps(res))


def fmt(ns):
    if ns is None:
        return "—"
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    return f"{ns / 1e3:.1f} µs"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--filter", default=None)
    ap.add_argument("--default-malloc", action="store_true")
    ap.add_argument("--peers-only", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.peers_only:
        run_peers(args)
        return
    env = dict(os.environ)
    if not args.default_malloc:
        env.update(MALLOC_ENV)
    env["PYJIT_NUM_THREADS"] = str(args.threads)
    subprocess.run(
        ["cargo", "build", "--release", "-q", "-p", "pyjit-runtime", "--example", "kernel_table"],
        check=True,
    )
    cmd = ["cargo", "run", "--release", "-q", "-p", "pyjit-runtime", "--example", "kernel_table", "--"]
    if args.filter:
        cmd.append(args.filter)
    ours = {}
    for line in subprocess.run(cmd, check=True, env=env, capture_output=True, text=True).stdout.splitlines():
        rec = json.loads(line)
        ours[rec["case"]] = rec["ns"]
    peer_cmd = [sys.executable, __file__, "--peers-only", "--threads", str(args.threads)]
    if args.filter:
        peer_cmd += ["--filter", args.filter]
    peers = json.loads(subprocess.run(peer_cmd, check=True, env=env, capture_output=True, text=True).stdout)
    print(f"| case | pyjit | numpy | torch ({args.threads} threads) | pyjit / best |")
    print("|---|---|---|---|---|")
    for case, ns in ours.items():
        p = peers.get(case, {})
        best = min(v for v in (p.get("numpy"), p.get("torch")) if v is not None) if p else None
        ratio = f"{ns / best:.2f}×" if best else "—"
        print(f"| {case} | {fmt(ns)} | {fmt(p.get('numpy'))} | {fmt(p.get('torch'))} | {ratio} |")


if __name__ == "__main__":
    main()
