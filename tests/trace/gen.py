"""Regenerates tests/trace/expected.json: for every program here, f(*argsK()) run eagerly by
PyTorch (result and printed output), in the order args0, args1, ... The Rust test
(crates/pyjit-trace/tests/trace_programs.rs) calls one traced function on the same argument
sets in the same order and must agree. Run: python3 tests/trace/gen.py"""

import contextlib
import io
import json
import math
import os
import runpy

import torch

HERE = os.path.dirname(os.path.abspath(__file__))


def encode(v):
    if isinstance(v, torch.Tensor):
        return {"tensor": v.tolist(), "dtype": str(v.dtype).replace("torch.", ""), "shape": list(v.shape)}
    if isinstance(v, bool):
        return {"bool": v}
    if isinstance(v, int):
        return {"int": v}
    if isinstance(v, float):
        assert math.isfinite(v)
        return {"float": v}
    if isinstance(v, str):
        return {"str": v}
    if v is None:
        return None
    if isinstance(v, tuple):
        return {"tuple": [encode(x) for x in v]}
    if isinstance(v, list):
        return {"list": [encode(x) for x in v]}
    raise TypeError(type(v))


def main():
    out = {}
    for name in sorted(os.listdir(HERE)):
        if not name.endswith(".py") or name == "gen.py":
            continue
        ns = runpy.run_path(os.path.join(HERE, name))
        cases = []
        k = 0
        while f"args{k}" in ns:
            args = ns[f"args{k}"]()
            buf = io.StringIO()
            with contextlib.redirect_stdout(buf):
                r = ns["f"](*args)
            cases.append({"result": encode(r), "stdout": buf.getvalue()})
            k += 1
        assert len(cases) >= 2, name
        out[name[:-3]] = cases
    with open(os.path.join(HERE, "expected.json"), "w") as fh:
        json.dump(out, fh, indent=1, sort_keys=True)
        fh.write("\n")


if __name__ == "__main__":
    main()
