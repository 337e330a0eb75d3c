"""The peer benchmark through Python: every peerbench workload through ``@pyjit.script`` beside
numpy, torch eager, torch.jit.script, torch.compile, numba, jax.jit and peerbench's jax.lax rewrites
(``jax.jit+lax``, ``jax.jit+vmap``; whichever are installed), and pyjit with ``fastmath=True``
on the workloads that call ``tanh`` (``pyjit+fastmath``, not counted as the best peer),
in one process; every output is checked against numpy's, and the table gives first-call
(compile + run) and steady-state times with ratios to the best peer. Then pyjit's per-call
overhead from Python.

    PYTHONPATH=crates/pyjit-py/python python benches/python_peers.py [--workloads a,b] [--quick] [--per-call]
        [--default-malloc]

Like shared/peerbench's harness (and benches/peer_table.py), the process runs with
``MALLOC_MMAP_THRESHOLD_=32MiB MALLOC_TRIM_THRESHOLD_=1GiB`` (it re-executes itself with them
unless ``--default-malloc`` is given): glibc reads them at start-up, and they apply to every
peer alike. With glibc's defaults, pyjit's converge is bimodal across processes (docs/python.md).

Run it with a release build of the package (``maturin develop --release``; ``cargo xtask test``
leaves a debug build of the package in ``crates/pyjit-py/python/pyjit``). The workloads are
read from ``$PYJIT_PEERBENCH/workloads`` (default: ``../shared/peerbench`` beside the checkout).
Numbers are only comparable within one run.
"""

import argparse
import gc
import importlib
import importlib.util
import inspect
import math
import os
import statistics
import sys
import time
import types
from pathlib import Path

from peerbench_env import MALLOC_ENV

# peerbench's allocator settings (see the docstring), before anything allocates much.
if "--default-malloc" not in sys.argv and any(os.environ.get(k) != v for k, v in MALLOC_ENV.items()):
    os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, **MALLOC_ENV})

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
BENCH = Path(os.environ.get("PYJIT_PEERBENCH", ROOT.parent / "shared" / "peerbench"))
WORKLOADS = BENCH / "workloads"
if not (WORKLOADS / "cases.py").exists():
    sys.exit(f"no peerbench workloads in {WORKLOADS}: set PYJIT_PEERBENCH to the peerbench directory")
sys.path.insert(0, str(WORKLOADS))

import pyjit  # noqa: E402

cases = importlib.import_module("cases")

# Combinations that cannot be measured in reasonable time (the peerbench notes say why).
SKIP = {
    ("torch.jit.script", "scalar_loop"): "TorchScript interpreter: ~20 s per call",
    ("torch.compile", "scalar_loop"): "dynamo unrolls the loop at trace time",
    ("torch.compile", "mandelbrot"): "dynamo unrolls the scalar loops at trace time",
}
X64 = {"scalar_loop", "mandelbrot"}
# Seconds to wait before each peer's first call, so that no library's worker thread is still
# busy-waiting from the reference computation or the peer before: after a matrix product
# NumPy's OpenBLAS keeps one worker spinning for about 0.1 s (benches/numba_twins.py).
SETTLE = 0.25


def median_time(call, target):
    """Median seconds per call over about ``target`` seconds, after the calls made so far."""
    perf = time.perf_counter
    t0 = perf()
    call()
    est = max(perf() - t0, 1e-9)
    k = max(1, math.ceil(2e-4 / est))
    n = max(3 if est > 0.1 else 7, min(int(target / (est * k)), 500))
    samples = []
    gc.collect()
    gc.disable()
    try:
        for _ in range(n):
            t0 = perf()
            for _ in range(k):
                call()
            samples.append((perf() - t0) / k)
    finally:
        gc.enable()
    return statistics.median(samples)


def check(out, ref):
    out, ref = np.asarray(out), np.asarray(ref)
    if out.shape != ref.shape:
        return f"shape {out.shape} != {ref.shape}"
    if out.dtype != ref.dtype:
        if not np.allclose(out.astype(np.float64), ref.astype(np.float64), rtol=1e-4, atol=1e-5):
            return "wrong values"
        return f"dtype {out.dtype} != {ref.dtype}"
    if np.issubdtype(ref.dtype, np.floating):
        if not np.allclose(out, ref, rtol=1e-4, atol=1e-5):
            return f"max abs err {np.abs(out.astype(np.float64) - ref).max():.3g}"
    elif not np.array_equal(out, ref):
        return "wrong values"
    return ""


def fresh(fn, **glob):
    g = dict(fn.__globals__, **glob)
    return types.FunctionType(fn.__code__.replace(), g, fn.__name__, fn.__defaults__, fn.__closure__)


def peers():
    """(name, make) pairs: make(workload, numpy args) -> (call(args), convert(args), to_numpy)."""
    out = []
    ident = lambda v: v  # noqa: E731

    def pyjit_make(wl, a):
        f = pyjit.script(getattr(importlib.import_module(wl), wl))
        return f, ident, np.asarray

    out.append(("pyjit", pyjit_make))

    def pyjit_fast_make(wl, a):
        f = pyjit.script(getattr(importlib.import_module(wl), wl), fastmath=True)
        return f, ident, np.asarray

    out.append((FASTMATH, pyjit_fast_make))

    def numpy_make(wl, a):
        return getattr(importlib.import_module(wl + "_np"), wl), ident, np.asarray

    out.append(("numpy", numpy_make))
    try:
        import torch

        torch.set_num_threads(2)
        conv = lambda v: tuple(torch.from_numpy(x) if isinstance(x, np.ndarray) else x for x in v)  # noqa: E731
        to_np = lambda r: r.numpy() if isinstance(r, torch.Tensor) else np.asarray(r)  # noqa: E731
        src = lambda wl: getattr(importlib.import_module(wl), wl)  # noqa: E731
        out.append(("torch", lambda wl, a: (src(wl), conv, to_np)))

        def jit_script(wl, a):
            h = {}

            def call(*args):
                if "f" not in h:
                    h["f"] = torch.jit.script(fresh(src(wl)))
                return h["f"](*args)

            return call, conv, to_np

        out.append(("torch.jit.script", jit_script))
        out.append(("torch.compile", lambda wl, a: (torch.compile(fresh(src(wl))), conv, to_np)))
    except ImportError:
        pass
    try:
        import numba

        out.append(
            ("numba", lambda wl, a: (numba.njit(getattr(importlib.import_module(wl + "_np"), wl)), ident, np.asarray))
        )
    except ImportError:
        pass
    try:
        import jax
        import jax.numpy as jnp

        def jax_make(wl, a):
            jax.config.update("jax_enable_x64", wl in X64)
            fn = fresh(getattr(importlib.import_module(wl + "_np"), wl), np=jnp)
            static = tuple(i for i, v in enumerate(a) if isinstance(v, int) and not isinstance(v, bool))
            jf = jax.jit(fn, static_argnums=static)
            conv = lambda v: tuple(jnp.asarray(x) if isinstance(x, np.ndarray) else x for x in v)  # noqa: E731
            return (lambda *v: jax.block_until_ready(jf(*v))), conv, np.asarray

        out.append(("jax.jit", jax_make))

        def jax_lax_make(suffix):
            # peerbench's lax rewrites (workloads/jax_lax.py), built as its harness builds them:
            # int arguments traced except mandelbrot's (its grid size is a shape).
            def make(wl, a):
                jax.config.update("jax_enable_x64", wl in X64)
                fn = getattr(importlib.import_module("jax_lax"), wl + suffix)
                static = ()
                if wl == "mandelbrot":
                    static = tuple(i for i, v in enumerate(a) if isinstance(v, int) and not isinstance(v, bool))
                jf = jax.jit(fresh(fn), static_argnums=static)
                conv = lambda v: tuple(jnp.asarray(x) if isinstance(x, np.ndarray) else x for x in v)  # noqa: E731
                return (lambda *v: jax.block_until_ready(jf(*v))), conv, np.asarray

            return make

        for name, suffix in LAX_SUFFIX.items():
            out.append((name, jax_lax_make(suffix)))
    except ImportError:
        pass
    return out


LAX_SUFFIX = {"jax.jit+lax": "", "jax.jit+vmap": "_vmap"}

# pyjit with `fastmath=True` (float32 tanh within 6.5 ulp instead of 0.88): run only on the
# workloads that call tanh (elsewhere it is the same code as "pyjit"), and left out of the best
# peer, so that "steady / best" compares every peer with the others' defaults.
FASTMATH = "pyjit+fastmath"


def uses_tanh(wl):
    return "tanh" in inspect.getsource(importlib.import_module(wl))


def has_lax_variant(wl, name):
    return hasattr(importlib.import_module("jax_lax"), wl + LAX_SUFFIX[name])


def overhead():
    """Per-call cost of a compiled function whose native work is nothing, from Python."""
    src = "def ident(n: int) -> int:\n    return n\n\n\ndef first(x):\n    return x\n"
    path = ROOT / "target" / "overhead_probe.py"
    path.parent.mkdir(exist_ok=True)
    path.write_text(src)
    spec = importlib.util.spec_from_file_location("overhead_probe", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    rows = []
    f, g = pyjit.script(mod.ident), pyjit.script(mod.first)
    x = np.ones(1, dtype=np.float32)
    f(1), g(x)
    rows.append(("pyjit ident(int)", median_time(lambda: f(1), 0.5)))
    rows.append(("pyjit first(1-element array)", median_time(lambda: g(x), 0.5)))
    rows.append(("Python ident(int)", median_time(lambda: mod.ident(1), 0.5)))
    try:
        import numba

        nf = numba.njit(mod.ident)
        nf(1)
        rows.append(("numba ident(int)", median_time(lambda: nf(1), 0.5)))
    except ImportError:
        pass
    try:
        import torch

        tf = torch.jit.script(mod.ident)
        tf(1)
        rows.append(("torch.jit.script ident(int)", median_time(lambda: tf(1), 0.5)))
    except ImportError:
        pass
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--workloads", default=",".join(cases.PRIMARY))
    ap.add_argument("--peers", default="", help="comma-separated subset of the peers (default: all installed)")
    ap.add_argument("--quick", action="store_true", help="shorter timing windows")
    ap.add_argument("--per-call", action="store_true", help="only the per-call overhead table")
    ap.add_argument("--default-malloc", action="store_true", help="glibc's default allocator settings")
    args = ap.parse_args()
    target = 0.3 if args.quick else 1.0
    table = []
    for wl in [] if args.per_call else args.workloads.split(","):
        for case in cases.PRIMARY[wl]:
            a = cases.CASES[wl][case]()
            ref = np.asarray(getattr(importlib.import_module(wl + "_np"), wl)(*a))
            for name, make in peers():
                if args.peers and name not in args.peers.split(","):
                    continue
                if name in LAX_SUFFIX and not has_lax_variant(wl, name):
                    continue  # peerbench rewrote only the control-flow workloads
                if name == FASTMATH and not uses_tanh(wl):
                    continue
                if (name, wl) in SKIP:
                    table.append((wl, case, name, None, None, SKIP[(name, wl)]))
                    continue
                time.sleep(SETTLE)
                try:
                    call, conv, to_np = make(wl, a)
                    v = conv(a)
                    t0 = time.perf_counter()
                    r = call(*v)
                    first = time.perf_counter() - t0
                    bad = check(to_np(r), ref)
                    steady = median_time(lambda: call(*v), target)
                    table.append((wl, case, name, first, steady, bad))
                except Exception as e:  # a peer that cannot run a workload is reported, not fatal
                    msg = str(e).strip().splitlines()
                    table.append((wl, case, name, None, None, f"{type(e).__name__}: {msg[0] if msg else ''}"[:90]))
                print(f"  {wl} {case} {name}: done", file=sys.stderr, flush=True)
    if not args.per_call:
        print("| workload | case | peer | first call ms | steady ms | steady / best | check |")
        print("|---|---|---|---:|---:|---:|---|")
        for wl, case in dict.fromkeys((r[0], r[1]) for r in table):
            rows = [r for r in table if r[0] == wl and r[1] == case]
            good = [r[4] for r in rows if r[4] is not None and not r[5] and r[2] != FASTMATH]
            best = min(good) if good else None
            for _, _, name, first, steady, bad in rows:
                f = f"{first * 1e3:.3f}" if first is not None else "—"
                s = f"{steady * 1e3:.4f}" if steady is not None else "—"
                ratio = f"{steady / best:.2f}x" if steady is not None and best else "—"
                print(f"| {wl} | {case} | {name} | {f} | {s} | {ratio} | {bad or 'ok'} |")
    print()
    print("| per-call overhead | ns per call |")
    print("|---|---:|")
    for name, t in overhead():
        print(f"| {name} | {t * 1e9:.0f} |")


if __name__ == "__main__":
    main()
