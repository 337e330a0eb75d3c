"""Oracle for the end-to-end program corpus (tests/programs/).

Runs every program of tests/programs/*.py eagerly under real PyTorch (or NumPy, for the
NumPy-spelling programs) on the argument sets declared in cases*.py, and writes, for each case k,
tests/programs/<name>.cases/<k>/ with args.txt, argN.npy, expected.npz (or error.txt), result.txt
and stdout.txt, plus tests/programs/manifest.json.  The format is documented in
tests/programs/README.md.

Eager PyTorch is the truth (LANGUAGE.md).  torch.jit.script is only *probed*: whether it accepts
each function and whether its result agrees with eager is recorded in the manifest, never used
as the expected output.

Checks before anything is accepted: each case raises exactly when it is marked `error=True`; the
cases together run every statement of the program and take both sides of every `if` (traced);
no result contradicts its return annotation.

Everything written is deterministic: inputs come from per-program seeds, .npz archives are
written with fixed zip timestamps, and paths in messages are made relative to the repository.

Usage: python3 tests/oracle/programs/gen.py [NAME ...]
(with names, only those programs are regenerated and the manifest entries updated).
"""
import ast
import contextlib
import importlib.util
import inspect
import io
import json
import math
import os
import shutil
import sys
import typing
import warnings
import zipfile
import zlib

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
PROGRAMS = os.path.join(ROOT, "tests", "programs")
sys.path.insert(0, HERE)

import cases as case_specs  # noqa: E402  (needs sys.path above)

ZIP_TIME = (1980, 1, 1, 0, 0, 0)


class Unencodable(Exception):
    pass


# ---------------------------------------------------------------- argument encoding


def encode_arg(value, case_dir, counter):
    """Return the `pyjit run` spelling of one argument, saving tensors as argN.npy."""
    if isinstance(value, (torch.Tensor, np.ndarray, np.generic)):
        arr = value.detach().cpu().numpy() if isinstance(value, torch.Tensor) else np.asarray(value)
        name = "arg%d.npy" % counter[0]
        counter[0] += 1
        save_npy(os.path.join(case_dir, name), arr)
        return name
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        r = repr(value)
        assert any(c in r for c in ".e"), r
        return r
    if value is None:
        return "none"
    if isinstance(value, list):
        return "[" + ",".join(encode_arg(v, case_dir, counter) for v in value) + "]"
    if isinstance(value, tuple):
        return "(" + ",".join(encode_arg(v, case_dir, counter) for v in value) + ")"
    raise Unencodable("cannot encode argument %r" % (value,))


def c_order(arr):
    """C-contiguous copy keeping 0-d arrays 0-d (np.ascontiguousarray would make them 1-d)."""
    arr = np.asarray(arr)
    return arr if arr.flags["C_CONTIGUOUS"] else arr.copy(order="C")


def save_npy(path, arr):
    with open(path, "wb") as f:
        np.lib.format.write_array(f, c_order(arr), allow_pickle=False)


def clone_args(args):
    out = []
    for a in args:
        if isinstance(a, torch.Tensor):
            out.append(a.clone())
        elif isinstance(a, np.ndarray):
            out.append(a.copy())
        elif isinstance(a, list):
            out.append(clone_args(a))
        elif isinstance(a, tuple):
            out.append(tuple(clone_args(list(a))))
        else:
            out.append(a)
    return out


# ---------------------------------------------------------------- result encoding


def is_scalar(v):
    return isinstance(v, (bool, int, float))


def scalar_array(v):
    if isinstance(v, bool):
        return np.array(v, dtype=np.bool_)
    if isinstance(v, int):
        return np.array(v, dtype=np.int64)
    return np.array(v, dtype=np.float64)


SCHEMA_TYPES = {"List[int]": typing.List[int], "List[float]": typing.List[float], "List[bool]": typing.List[bool]}


def list_elem_dtype(annot):
    """Element dtype of a List[int/float/bool] annotation (for empty lists), else None."""
    if typing.get_origin(annot) in (list, typing.List):
        (e,) = typing.get_args(annot)
        return {int: np.int64, float: np.float64, bool: np.bool_}.get(e)
    return None


def encode_value(v, key, out, annot=None):
    """Add the arrays of value v under `key` to `out`; return a type description string."""
    if isinstance(v, torch.Size):
        v = list(v)
    if isinstance(v, torch.Tensor):
        out[key] = v.detach().cpu().numpy()
        return "Tensor"
    if isinstance(v, np.ndarray):
        out[key] = v
        return "ndarray"
    if isinstance(v, np.generic):
        out[key] = np.asarray(v)
        return "ndarray"
    if is_scalar(v):
        out[key] = scalar_array(v)
        return type(v).__name__
    if isinstance(v, list) and (all(is_scalar(e) for e in v)):
        kinds = {type(e) for e in v}
        if len(kinds) > 1:
            raise Unencodable("mixed list %r" % (v,))
        if v:
            dt = {bool: np.bool_, int: np.int64, float: np.float64}[kinds.pop()]
        else:
            dt = list_elem_dtype(annot)
            if dt is None:
                raise Unencodable("empty list without a List[int/float/bool] annotation")
        out[key] = np.array(v, dtype=dt)
        return "List[%s]" % {np.bool_: "bool", np.int64: "int", np.float64: "float"}[dt]
    if isinstance(v, (list, tuple)):
        if not v:
            raise Unencodable("empty list/tuple of non-scalars")
        sub_annots = [None] * len(v)
        if annot is not None and typing.get_origin(annot) is tuple:
            sub_annots = list(typing.get_args(annot))
        elif annot is not None and typing.get_origin(annot) is list:
            sub_annots = [typing.get_args(annot)[0]] * len(v)
        parts = [encode_value(e, "%s_%d" % (key, i), out, sub_annots[i] if i < len(sub_annots) else None)
                 for i, e in enumerate(v)]
        if isinstance(v, tuple):
            return "Tuple[%s]" % ", ".join(parts)
        if len(set(parts)) != 1:
            raise Unencodable("heterogeneous list")
        return "List[%s]" % parts[0]
    if v is None:
        raise Unencodable("None inside a container")
    raise Unencodable("cannot encode result %r" % (v,))


def annotation_mismatch(v, annot):
    """Where eager Python's value disagrees with the static type (e.g. an int returned from a
    `-> float` function: Python keeps the int, the language converts), the eager result is not the
    truth for the compiler; such programs must be rewritten.  Returns a description or None."""
    if annot is None or v is None:
        return None
    if annot in (int, float, bool):
        if type(v) is not annot:
            return "%r is %s, annotated %s" % (v, type(v).__name__, annot.__name__)
        return None
    origin, sub = typing.get_origin(annot), typing.get_args(annot)
    if origin is list and isinstance(v, list):
        for e in v:
            m = annotation_mismatch(e, sub[0])
            if m:
                return m
    if origin is tuple and isinstance(v, tuple) and len(sub) == len(v):
        for e, a in zip(v, sub):
            m = annotation_mismatch(e, a)
            if m:
                return m
    if origin is typing.Union:
        inner = [a for a in sub if a is not type(None)]
        if len(inner) == 1:
            return annotation_mismatch(v, inner[0])
    return None


def encode_result(v, annot):
    """Arrays of a top-level result, following `pyjit run -o X.npz`, and its type string."""
    out = {}
    if v is None:
        return out, "None"
    if isinstance(v, torch.Size):
        v = list(v)  # `x.shape` is List[int] in the language (a tuple subclass in eager PyTorch)
    if isinstance(v, tuple):
        sub = list(typing.get_args(annot)) if typing.get_origin(annot) is tuple else [None] * len(v)
        parts = [encode_value(e, "arr_%d" % i, out, sub[i] if i < len(sub) else None) for i, e in enumerate(v)]
        return out, "Tuple[%s]" % ", ".join(parts)
    return out, encode_value(v, "arr_0", out, annot)


def write_npz(path, arrays):
    """np.savez-compatible archive with fixed timestamps (np.savez stamps the current time)."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as z:
        for key in sorted(arrays, key=natural_key):
            buf = io.BytesIO()
            np.lib.format.write_array(buf, c_order(arrays[key]), allow_pickle=False)
            info = zipfile.ZipInfo(key + ".npy", date_time=ZIP_TIME)
            info.external_attr = 0o644 << 16
            z.writestr(info, buf.getvalue())


def natural_key(s):
    return [int(p) if p.isdigit() else p for p in s.replace("_", " _ ").split()]


# ---------------------------------------------------------------- comparison (TorchScript probe)


def same(a, b):
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        if a.dtype != b.dtype or a.shape != b.shape:
            return False
        if a.dtype == torch.float64:
            return bool(torch.allclose(a, b, rtol=1e-9, atol=1e-12, equal_nan=True))
        if a.dtype.is_floating_point:
            return bool(torch.allclose(a, b, rtol=1e-5, atol=1e-6, equal_nan=True))
        return bool(torch.equal(a, b))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    return a == b


@contextlib.contextmanager
def silence_fd1():
    """TorchScript's print writes to the C++ stdout (fd 1), bypassing sys.stdout."""
    sys.stdout.flush()
    saved = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    try:
        yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)
        os.close(devnull)


def clean_message(msg):
    msg = msg.replace(ROOT + os.sep, "")
    return msg


def first_line(msg):
    for line in clean_message(msg).splitlines():
        if line.strip():
            return line.strip()
    return ""


# ---------------------------------------------------------------- driver


def load_module(name):
    path = os.path.join(PROGRAMS, name + ".py")
    spec = importlib.util.spec_from_file_location("pyjit_prog_" + name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # `@torch.jit.script` at import warns about deprecation
        spec.loader.exec_module(mod)
    return mod


def functions_of(mod):
    """The module's own functions; `@torch.jit.script`-decorated ones are ScriptFunctions."""
    out = []
    for n, f in vars(mod).items():
        if inspect.isfunction(f) and f.__module__ == mod.__name__:
            out.append(n)
        elif isinstance(f, torch.jit.ScriptFunction):
            out.append(n)
    return sorted(out)


def probe_script(mod, fname):
    if isinstance(getattr(mod, fname), torch.jit.ScriptFunction):
        return getattr(mod, fname), None
    with warnings.catch_warnings(), silence_fd1():
        warnings.simplefilter("ignore")
        try:
            return torch.jit.script(getattr(mod, fname)), None
        except Exception as e:  # any rejection is information, not a failure
            return None, "%s: %s" % (type(e).__name__, first_line(str(e)))


class ArcTracer:
    """Records (previous line, line) arcs executed in one source file (branch-coverage check)."""

    def __init__(self, path):
        self.path = path
        self.arcs = set()

    def __call__(self, frame, event, arg):
        if frame.f_code.co_filename != self.path:
            return None
        prev = [None]

        def local(frame, event, arg):
            if event == "line":
                self.arcs.add((prev[0], frame.f_lineno))
                prev[0] = frame.f_lineno
            elif event == "return":
                self.arcs.add((prev[0], -1))
            return local

        return local(frame, event, arg) or local


def as_declared(fn, args):
    """Convert int arguments of `float` / `Optional[float]` parameters to float, as the language
    does at the call boundary (eager Python would keep the int inside the function)."""
    if not inspect.isfunction(fn):
        return args
    hints = typing.get_type_hints(fn)
    params = list(inspect.signature(fn).parameters)
    out = list(args)
    for i, a in enumerate(out):
        h = hints.get(params[i]) if i < len(params) else None
        if h in (float, typing.Optional[float]) and type(a) is int:
            out[i] = float(a)
    return out


def run_eager(fn, args, tracer=None):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if tracer is not None:
            sys.settrace(tracer)
        try:
            return ("ok", fn(*args)), buf.getvalue()
        except Exception as e:
            return ("error", e), buf.getvalue()
        finally:
            sys.settrace(None)


def coverage_gaps(path, arcs):
    """Statements of the program's functions never executed, and `if`s that never took a side.

    Checked at line granularity, so conditional expressions and `and`/`or` inside one line are not
    seen; those are covered by the cases' notes instead.
    """
    tree = ast.parse(open(path).read())
    executed = {b for _, b in arcs}
    missed = []
    untaken = []

    def visit_body(body):
        for i, st in enumerate(body):
            if i == 0 and isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant):
                continue  # docstring
            visit(st)

    def visit(st):
        if isinstance(st, (ast.FunctionDef, ast.ClassDef)):
            return
        if st.lineno not in executed:
            missed.append(st.lineno)
            return
        if isinstance(st, ast.If):
            first = st.body[0].lineno
            taken_true = (st.lineno, first) in arcs
            taken_false = any(a == st.lineno and b != first for a, b in arcs)
            if not taken_true:
                untaken.append("%d:true" % st.lineno)
            if not taken_false:
                untaken.append("%d:false" % st.lineno)
        for field in ("body", "orelse"):
            if isinstance(getattr(st, field, None), list) and getattr(st, field):
                visit_body(getattr(st, field))

    for node in tree.body:
        # a `@torch.jit.script` body runs in TorchScript, not in Python: not traceable
        if isinstance(node, ast.FunctionDef) and not node.decorator_list:
            visit_body(node.body)
    return sorted(set(missed)), untaken


def run_scripted(sfn, args):
    with silence_fd1(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return "ok", sfn(*args)
        except Exception as e:
            return "error", e


def seed_for(name):
    return zlib.crc32(name.encode()) & 0x7FFFFFFF


# Programs named `ts_*` (the corpus of real-TorchScript-style functions) must compile under
# torch.jit.script, every function of them.
TORCHSCRIPT_PREFIX = "ts_"


def gen_program(name):
    mod = load_module(name)
    is_numpy = "np" in vars(mod) and vars(mod)["np"] is np
    seed = seed_for(name)
    torch.manual_seed(seed)
    case_specs.set_rng(seed)
    cases = case_specs.SPECS[name]()
    case_root = os.path.join(PROGRAMS, name + ".cases")
    if os.path.isdir(case_root):
        shutil.rmtree(case_root)
    os.makedirs(case_root)

    fnames = functions_of(mod)
    script = {}
    scripted = {}
    for f in fnames:
        if is_numpy:
            script[f] = {"accepted": False, "error": "NumPy-spelling program (not probed)"}
            continue
        sfn, err = probe_script(mod, f)
        script[f] = {"accepted": sfn is not None} if err is None else {"accepted": False, "error": err}
        scripted[f] = sfn
        if name.startswith(TORCHSCRIPT_PREFIX) and err is not None:
            # the real-TorchScript corpus: every function must be one torch.jit.script accepts
            raise SystemExit("%s: %s is not accepted by torch.jit.script: %s" % (name, f, err))

    entries = []
    tracer = ArcTracer(mod.__file__)
    for k, case in enumerate(cases):
        fname, args, note = case["fn"], case["args"], case.get("note", "")
        assert fname in fnames, "%s: unknown function %s" % (name, fname)
        d = os.path.join(case_root, str(k))
        os.makedirs(d)
        counter = [0]
        line = " ".join([fname] + [encode_arg(a, d, counter) for a in args])
        with open(os.path.join(d, "args.txt"), "w") as f:
            f.write(line + "\n")
        fn = getattr(mod, fname)
        (status, value), out = run_eager(fn, as_declared(fn, clone_args(args)), tracer)
        entry = {"case": k, "fn": fname, "args": line, "note": note}
        if out:
            with open(os.path.join(d, "stdout.txt"), "w") as f:
                f.write(out)
            entry["stdout"] = True
        if status == "error":
            text = clean_message(str(value))
            msg = "%s: %s" % (type(value).__name__, text) if text else type(value).__name__
            with open(os.path.join(d, "error.txt"), "w") as f:
                f.write(msg.rstrip("\n") + "\n")
            entry["outcome"] = "error"
            entry["error"] = type(value).__name__
            if not case.get("expect_error"):
                raise SystemExit("%s case %d raised unexpectedly: %s" % (name, k, msg))
        else:
            if case.get("expect_error"):
                raise SystemExit("%s case %d was expected to raise" % (name, k))
            annot = typing.get_type_hints(fn).get("return") if inspect.isfunction(fn) and not is_numpy else None
            if annot is None and scripted.get(fname) is not None:
                # a `# type:` comment: TorchScript has parsed it for us
                annot = SCHEMA_TYPES.get(str(scripted[fname].schema.returns[0].type))
            bad = annotation_mismatch(value, annot)
            if bad:
                raise SystemExit("%s case %d: result %s" % (name, k, bad))
            arrays, rtype = encode_result(value, annot)
            write_npz(os.path.join(d, "expected.npz"), arrays)
            with open(os.path.join(d, "result.txt"), "w") as f:
                f.write(str(value) + "\n")
            entry["outcome"] = "ok"
            entry["result"] = rtype
        if scripted.get(fname) is not None and status == "error" and isinstance(value, ZeroDivisionError):
            # TorchScript's int `%` by zero kills the process with SIGFPE: do not probe it
            entry["torchscript"] = "not run (ZeroDivisionError)"
        elif scripted.get(fname) is not None:
            sstatus, svalue = run_scripted(scripted[fname], clone_args(args))
            if status == "error":
                entry["torchscript"] = "raises" if sstatus == "error" else "differs"
            elif sstatus == "error":
                entry["torchscript"] = "error: %s: %s" % (type(svalue).__name__, first_line(str(svalue)))
            else:
                entry["torchscript"] = "same" if same(value, svalue) else "differs"
        if "tol" in case:
            entry["tol"] = case["tol"]
        entries.append(entry)
    del sys.modules[mod.__name__]
    missed, untaken = coverage_gaps(mod.__file__, tracer.arcs)
    exempt = case_specs.COVERAGE_EXEMPT.get(name, {})
    missed = [m for m in missed if m not in exempt]
    untaken = [u for u in untaken if u not in exempt]
    if missed or untaken:
        raise SystemExit("%s: coverage gaps: lines never run %s, if-sides never taken %s (add cases)"
                         % (name, missed, untaken))
    return {
        "coverage": {"lines_never_run": missed, "if_sides_never_taken": untaken},
        "numpy": is_numpy,
        "functions": script,
        "cases": entries,
    }


def main(argv):
    names = sorted(f[:-3] for f in os.listdir(PROGRAMS) if f.endswith(".py"))
    missing = [n for n in names if n not in case_specs.SPECS]
    extra = [n for n in case_specs.SPECS if n not in names]
    if missing or extra:
        raise SystemExit("programs without cases: %s; cases without programs: %s" % (missing, extra))
    for d in os.listdir(PROGRAMS):
        if d.endswith(".cases") and d[:-6] not in names:
            shutil.rmtree(os.path.join(PROGRAMS, d))
    manifest_path = os.path.join(PROGRAMS, "manifest.json")
    programs = {}
    if argv:
        with open(manifest_path) as f:
            programs = json.load(f)["programs"]
    for name in (argv or names):
        try:
            programs[name] = gen_program(name)
        except Unencodable as e:
            raise SystemExit("%s: %s" % (name, e))
        print("%-32s %d cases" % (name, len(programs[name]["cases"])), file=sys.stderr)
    programs = {n: programs[n] for n in names}
    all_cases = [c for p in programs.values() for c in p["cases"]]
    fn_total = sum(len(p["functions"]) for p in programs.values())
    fn_script = sum(1 for p in programs.values() for f in p["functions"].values() if f["accepted"])
    summary = {
        "programs": len(programs),
        "cases": len(all_cases),
        "error_cases": sum(1 for c in all_cases if c["outcome"] == "error"),
        "cases_with_stdout": sum(1 for c in all_cases if c.get("stdout")),
        "numpy_programs": sum(1 for p in programs.values() if p["numpy"]),
        "functions": fn_total,
        "functions_torchscript_accepted": fn_script,
        "programs_fully_torchscript": sum(
            1 for p in programs.values() if p["functions"] and all(f["accepted"] for f in p["functions"].values())),
        "cases_torchscript_same": sum(1 for c in all_cases if c.get("torchscript") in ("same", "raises")),
        "cases_torchscript_differs": sum(
            1 for c in all_cases if "torchscript" in c and c["torchscript"].split(":")[0] in ("differs", "error")),
        "torch_version": torch.__version__.split("+")[0],
        "numpy_version": np.__version__,
    }
    with open(manifest_path, "w") as f:
        json.dump({"summary": summary, "programs": programs}, f, indent=1, sort_keys=True)
        f.write("\n")
    print(json.dumps(summary, indent=1), file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
