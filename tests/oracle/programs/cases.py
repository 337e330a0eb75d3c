"""Argument sets for every program of tests/programs/.

SPECS[name]() returns the list of cases of program `name`; gen.py seeds torch (and RNG below)
with a per-program seed before calling it, so each program's inputs are independent of the
others.  A case is C(fn, *args, note=..., error=False): `note` says which branch/path the case
exercises (copied to the manifest), `error=True` marks a case that must raise.

Arguments may be torch tensors, NumPy arrays (NumPy-spelling programs), int, float, bool, None,
and lists/tuples of those — everything `pyjit run` can spell.
"""
import numpy as np
import torch

SPECS = {}

# gen.py checks that the cases run every statement and take both sides of every `if` (line
# granularity).  The few exceptions, with the reason each cannot be covered:
COVERAGE_EXEMPT = {
    # `if USE_BIAS:` tests a module-level constant: only one side exists
    "module_constants": {"18:false": "constant condition"},
}
RNG = np.random.default_rng(0)


def set_rng(seed):
    global RNG
    RNG = np.random.default_rng(seed)


def spec(name):
    def deco(f):
        assert name not in SPECS, name
        SPECS[name] = f
        return f

    return deco


def C(fn, *args, note="", error=False, tol=None):
    d = {"fn": fn, "args": list(args), "note": note}
    if error:
        d["expect_error"] = True
    if tol is not None:
        d["tol"] = tol
    return d


f32, f64, i64, i32, b8 = torch.float32, torch.float64, torch.int64, torch.int32, torch.bool


def rn(*shape, dtype=f32):
    return torch.randn(*shape, dtype=dtype)


def ri(lo, hi, *shape, dtype=i64):
    return torch.randint(lo, hi, shape, dtype=dtype)


def T(data, dtype=None):
    return torch.tensor(data, dtype=dtype)


def nrn(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


from cases_core import *  # noqa: E402,F401,F403  (each module registers into SPECS)
from cases_cf import *  # noqa: E402,F401,F403
from cases_data import *  # noqa: E402,F401,F403
from cases_scalar import *  # noqa: E402,F401,F403
from cases_ew import *  # noqa: E402,F401,F403
from cases_ops import *  # noqa: E402,F401,F403
from cases_misc import *  # noqa: E402,F401,F403
from cases_more import *  # noqa: E402,F401,F403
from cases_alg import *  # noqa: E402,F401,F403
from cases_ts import *  # noqa: E402,F401,F403
