"""Self-check of the committed corpus, using only the formats documented in tests/programs/README.md.

For every case folder: parse args.txt with an independent parser of the `pyjit run` argument
syntax, load the argN.npy files, call the function eagerly, and compare the result with
expected.npz (README's tolerances), the printed output with stdout.txt, and a raised exception
with error.txt.  This is what a harness for `pyjit run` does, with PyTorch in the place of pyjit;
it proves the files are complete and consistent, and serves as the reference for the Rust harness.

Usage: $PYTHON tests/oracle/programs/check.py [--emitted DIR]

With `--emitted DIR`, each case runs the Python that `pyjit compile --emit python` printed for it
instead of the program (`DIR/<name>.<k>.py`, written by the facade's round-trip test when
`PYJIT_EMIT_PYTHON_DIR=DIR` is set; cases without a file are skipped): the check that the printed
code is Python that CPython + torch runs with the corpus's results. The printed code is torch code,
so NumPy programs get torch tensors.
"""
import contextlib
import importlib.util
import inspect
import io
import json
import os
import re
import sys
import typing
import warnings
import zipfile

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = os.path.abspath(os.path.join(HERE, "..", "..", "programs"))

TOKEN = re.compile(r"\s*([\[\]\(\),]|[^\[\]\(\),\s]+)")
INT = re.compile(r"^[+-]?\d+$")


def tokenize(field):
    pos, out = 0, []
    while pos < len(field):
        m = TOKEN.match(field, pos)
        if not m:
            raise ValueError("bad argument %r" % field)
        out.append(m.group(1))
        pos = m.end()
    return out


def parse_arg(field, case_dir, numpy_program):
    toks = tokenize(field)
    value, rest = parse_tokens(toks, case_dir, numpy_program)
    if rest:
        raise ValueError("trailing tokens in %r" % field)
    return value


def parse_tokens(toks, case_dir, numpy_program):
    t = toks[0]
    if t in ("[", "("):
        close = "]" if t == "[" else ")"
        items, toks = [], toks[1:]
        if toks[0] == close:
            return ([] if t == "[" else ()), toks[1:]
        while True:
            v, toks = parse_tokens(toks, case_dir, numpy_program)
            items.append(v)
            if toks[0] == ",":
                toks = toks[1:]
            elif toks[0] == close:
                toks = toks[1:]
                break
            else:
                raise ValueError("expected , or %s" % close)
        return (items if t == "[" else tuple(items)), toks
    if t.endswith(".npy"):
        arr = np.load(os.path.join(case_dir, t))
        return (arr if numpy_program else torch.from_numpy(arr)), toks[1:]
    low = t.lower()
    if low in ("true", "false"):
        return low == "true", toks[1:]
    if low == "none":
        return None, toks[1:]
    if INT.match(t):
        return int(t), toks[1:]
    if any(c in low for c in ".e") or "inf" in low or "nan" in low:
        return float(t), toks[1:]
    raise ValueError("unknown argument %r" % t)


def flatten(v, key, out):
    """The README's npz encoding, written independently of gen.py."""
    if isinstance(v, torch.Size):
        v = list(v)
    if isinstance(v, torch.Tensor):
        out[key] = v.numpy()
    elif isinstance(v, (np.ndarray, np.generic)):
        out[key] = np.asarray(v)
    elif isinstance(v, bool):
        out[key] = np.array(v, dtype=np.bool_)
    elif isinstance(v, int):
        out[key] = np.array(v, dtype=np.int64)
    elif isinstance(v, float):
        out[key] = np.array(v, dtype=np.float64)
    elif isinstance(v, list) and all(isinstance(e, (bool, int, float)) for e in v):
        out[key] = v  # dtype checked against the file (empty lists carry no element type)
    else:
        for j, e in enumerate(v):
            flatten(e, "%s_%d" % (key, j), out)


def close(expected, got):
    if isinstance(got, list):
        got = np.array(got, dtype=expected.dtype) if got or expected.size == 0 else None
        if got is None or got.shape != expected.shape:
            return False
    if got.dtype != expected.dtype or got.shape != expected.shape:
        return False
    if expected.dtype.kind == "f":
        rtol, atol = (1e-4, 1e-5) if expected.dtype == np.float32 else (1e-9, 1e-12)
        return bool(np.allclose(got, expected, rtol=rtol, atol=atol, equal_nan=True))
    return bool(np.array_equal(got, expected))


def load(path, module_name):
    spec = importlib.util.spec_from_file_location(module_name, path)
    mod = importlib.util.module_from_spec(spec)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        spec.loader.exec_module(mod)
    return mod


def main():
    emitted = None
    if sys.argv[1:2] == ["--emitted"] and len(sys.argv) == 3:
        emitted = sys.argv[2]
    skipped = 0
    with open(os.path.join(PROGRAMS, "manifest.json")) as f:
        manifest = json.load(f)["programs"]
    failures, n = [], 0
    for name in sorted(manifest):
        path = os.path.join(PROGRAMS, name + ".py")
        mod = load(path, "pyjit_check_" + name)
        root = os.path.join(PROGRAMS, name + ".cases")
        ks = sorted(int(k) for k in os.listdir(root))
        if ks != list(range(len(manifest[name]["cases"]))):
            failures.append("%s: case folders %s do not match the manifest" % (name, ks))
        for k in ks:
            n += 1
            d = os.path.join(root, str(k))
            with open(os.path.join(d, "args.txt")) as f:
                line = f.read()
            if not line.endswith("\n") or "\n" in line[:-1]:
                failures.append("%s/%d: args.txt is not one line" % (name, k))
            fields = line.split()
            numpy_program = manifest[name]["numpy"]
            case_mod = mod
            if emitted is not None:
                p = os.path.join(emitted, "%s.%d.py" % (name, k))
                if not os.path.exists(p):
                    skipped += 1
                    continue
                case_mod = load(p, "pyjit_emitted_%s_%d" % (name, k))
                numpy_program = False
            fn = getattr(case_mod, fields[0])
            args = [parse_arg(a, d, numpy_program) for a in fields[1:]]
            if inspect.isfunction(fn):
                # an int literal for a `float` parameter is converted at the call, as pyjit does
                hints = typing.get_type_hints(fn)
                params = list(inspect.signature(fn).parameters)
                args = [float(a) if type(a) is int and hints.get(p) in (float, typing.Optional[float]) else a
                        for a, p in zip(args, params)]
            buf = io.StringIO()
            err = None
            with contextlib.redirect_stdout(buf), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    result = fn(*args)
                except Exception as e:
                    err = e
            printed = buf.getvalue()
            sp = os.path.join(d, "stdout.txt")
            want_out = open(sp).read() if os.path.exists(sp) else ""
            if printed != want_out:
                failures.append("%s/%d: stdout differs" % (name, k))
            ep = os.path.join(d, "error.txt")
            if err is not None:
                if not os.path.exists(ep) or os.path.exists(os.path.join(d, "expected.npz")):
                    failures.append("%s/%d: raised %r but no error.txt (or an expected.npz too)" % (name, k, err))
                elif not open(ep).read().startswith(type(err).__name__):
                    failures.append("%s/%d: error class differs" % (name, k))
                continue
            if os.path.exists(ep):
                failures.append("%s/%d: error.txt but the call succeeded" % (name, k))
                continue
            got = {}
            if emitted is not None and isinstance(result, torch.Tensor) and numpy_program != manifest[name]["numpy"]:
                result = result.numpy()
            if result is not None:
                if isinstance(result, tuple) and not isinstance(result, torch.Size):
                    for i, e in enumerate(result):
                        flatten(e, "arr_%d" % i, got)
                else:
                    flatten(result, "arr_0", got)
            with zipfile.ZipFile(os.path.join(d, "expected.npz")) as z:
                names = sorted(z.namelist())
            exp = np.load(os.path.join(d, "expected.npz"))
            if names != sorted(key + ".npy" for key in got):
                failures.append("%s/%d: npz keys %s, result keys %s" % (name, k, names, sorted(got)))
                continue
            for key in got:
                if not close(exp[key], got[key]):
                    failures.append("%s/%d: %s differs" % (name, k, key))
    for f in failures:
        print(f)
    print("%d programs, %d cases checked (%d skipped), %d failures" % (len(manifest), n - skipped, skipped, len(failures)))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
