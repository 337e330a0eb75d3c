"""Regenerates the runtime's golden cases from real PyTorch.

Run from the repository root with a Python that has torch and numpy:

    python3 tests/oracle/runtime/gen.py

It writes, next to this file:
  cases.json   the manifest: one entry per case (op name as in the schema table, positional and
               keyword arguments, and either the expected results or the expected error)
  inputs.npz   every input tensor, by name
  outputs.npz  every expected output tensor, by name

The Rust test crates/pyjit-runtime/tests/golden.rs replays every case through
`schema::resolve` + `dispatch::call` and compares dtype, shape and values (floats within the
tolerances documented there, ints/bools exactly, NaN positions exactly). Argument encoding:
  {"tensor": NAME, "view": null|"T"|"step2"|"expand"}   an input tensor (optionally viewed:
        "T" = transpose of the last two dims, "step2" = x[..., ::2], "expand" = a size-1 leading
        dim expanded to 2), all non-contiguous views
  {"int": 3} {"float": 2.5 | "nan" | "inf" | "-inf"} {"bool": true} {"none": true}
  {"ints": [..]} {"dtype": "float32"} {"str": ".."} {"tensors": [arg, ..]}
  {"list": [arg, ..]}                                  a (nested) literal for torch.tensor
  {"index": [component, ..]}  component = {"int": i} | {"slice": [start|null, stop|null, step]}
                              | {"none": true} | {"ellipsis": true} | {"tensor": ..}
"""

import json
import math
import os

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(20261129)
torch.manual_seed(0)

inputs = {}
outputs = {}
cases = []

DT = {
    "float32": torch.float32,
    "float64": torch.float64,
    "int64": torch.int64,
    "int32": torch.int32,
    "bool": torch.bool,
}
DT_NAME = {v: k for k, v in DT.items()}


class V:
    """An input tensor, optionally seen through a non-contiguous view."""

    def __init__(self, t, view=None):
        self.name = f"i{len(inputs)}"
        inputs[self.name] = t.detach().clone().numpy()
        self.base = t
        self.view = view

    def get(self):
        t = torch.from_numpy(inputs[self.name].copy())
        if self.view == "T":
            return t.transpose(-2, -1)
        if self.view == "step2":
            return t[..., ::2]
        if self.view == "expand":
            return t.expand(2, *t.shape[1:])
        return t

    def enc(self):
        return {"tensor": self.name, "view": self.view}


class Idx:
    def __init__(self, *comps):
        self.comps = comps


def enc_float(x):
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def enc(a):
    if isinstance(a, V):
        return a.enc()
    if a is None:
        return {"none": True}
    if isinstance(a, bool):
        return {"bool": a}
    if isinstance(a, int):
        return {"int": a}
    if isinstance(a, float):
        return {"float": enc_float(a)}
    if isinstance(a, torch.dtype):
        return {"dtype": DT_NAME[a]}
    if isinstance(a, str):
        return {"str": a}
    if isinstance(a, Idx):
        out = []
        for c in a.comps:
            if c is None:
                out.append({"none": True})
            elif c is Ellipsis:
                out.append({"ellipsis": True})
            elif isinstance(c, slice):
                out.append({"slice": [c.start, c.stop, 1 if c.step is None else c.step]})
            elif isinstance(c, V):
                out.append(c.enc())
            else:
                out.append({"int": c})
        return {"index": out}
    if isinstance(a, TL):
        return {"tensors": [enc(x) for x in a.items]}
    if isinstance(a, (list, tuple)):
        if all(isinstance(x, int) and not isinstance(x, bool) for x in a):
            return {"ints": list(a)}
        return {"list": [enc(x) for x in a]}
    raise TypeError(a)


class TL:
    """A list of tensors argument."""

    def __init__(self, *items):
        self.items = items


def dec(a):
    if isinstance(a, V):
        return a.get()
    if isinstance(a, TL):
        return [dec(x) for x in a.items]
    if isinstance(a, Idx):
        return tuple(dec(c) if isinstance(c, V) else c for c in a.comps)
    return a


def enc_result(r):
    if isinstance(r, torch.Tensor):
        name = f"o{len(outputs)}"
        outputs[name] = r.detach().contiguous().numpy().copy()
        return {"tensor": name}
    if isinstance(r, torch.Size):
        return {"ints": list(r)}
    if isinstance(r, bool):
        return {"bool": r}
    if isinstance(r, int):
        return {"int": r}
    if isinstance(r, float):
        return {"float": enc_float(r)}
    if isinstance(r, (list, tuple)) and all(isinstance(x, torch.Tensor) for x in r) and type(r) in (list, tuple):
        return {"tensors": [enc_result(x) for x in r]}
    raise TypeError(type(r))


METHOD_ONLY = {"size", "dim", "view", "expand", "expand_as", "contiguous", "repeat", "item", "to",
               "float", "double", "long", "int", "bool", "masked_fill_", "copy_", "fill_", "zero_",
               "add_", "sub_", "mul_", "div_", "floor_divide_", "remainder_", "pow_",
               "bitwise_and_", "bitwise_or_", "bitwise_xor_", "clamp_", "relu_", "neg_", "numel"}
FUNCTIONAL = {"gelu", "silu", "softplus", "leaky_relu", "linear"}


def py_call(op, args, kwargs):
    if op == "rdiv":
        return args[1] / args[0]
    if op == "rfloordiv":
        return args[1] // args[0]
    if op == "index":
        return args[0][args[1]]
    if op == "index_put_":
        x = args[0]
        x[args[1]] = args[2]
        return x
    if op == "Float":
        return float(args[0])
    if op == "Int":
        return int(args[0])
    if op == "Bool":
        return bool(args[0])
    if op in ("split", "chunk"):
        return list(getattr(torch, op)(*args, **kwargs))
    if op in ("max", "min") and len(args) + len(kwargs) >= 2 and not isinstance(args[1] if len(args) > 1 else None, torch.Tensor):
        r = getattr(torch, op)(*args, **kwargs)
        return (r.values, r.indices)
    if op in METHOD_ONLY:
        return getattr(args[0], op)(*args[1:], **kwargs)
    if op in FUNCTIONAL:
        return getattr(F, op)(*args, **kwargs)
    return getattr(torch, op)(*args, **kwargs)


def case(op, *args, **kwargs):
    entry = {
        "id": len(cases),
        "op": op,
        "args": [enc(a) for a in args],
        "kwargs": {k: enc(v) for k, v in kwargs.items()},
    }
    dargs = [dec(a) for a in args]
    dkw = {k: dec(v) for k, v in kwargs.items()}
    try:
        r = py_call(op, dargs, dkw)
        rs = list(r) if isinstance(r, tuple) and not isinstance(r, torch.Size) else [r]
        entry["expect"] = [enc_result(x) for x in rs]
    except Exception as e:  # noqa: BLE001 - the error is the expected outcome
        entry["error"] = {"type": type(e).__name__, "message": str(e).split("\n")[0]}
    cases.append(entry)


# ------------------------------------------------------------------------------ inputs


def rand(dtype, shape, special=False, positive=False, small=False):
    if dtype == "bool":
        return torch.from_numpy(np.asarray(rng.random(shape) > 0.5))
    if dtype in ("int64", "int32"):
        lo, hi = (1, 6) if positive else ((-4, 5) if small else (-9, 10))
        a = rng.integers(lo, hi, size=shape)
        return torch.from_numpy(np.asarray(a.astype(np.int64 if dtype == "int64" else np.int32)))
    a = rng.standard_normal(shape) * 2.0
    if positive:
        a = np.abs(a) + 0.1
    a = np.asarray(a.astype(np.float32 if dtype == "float32" else np.float64))
    if special and a.size >= 4:
        flat = a.reshape(-1)
        flat[0] = np.nan
        flat[1] = np.inf
        flat[2] = -0.0
        flat[3] = -np.inf
    return torch.from_numpy(a)


ALL = ["float32", "float64", "int64", "int32", "bool"]
NUM = ["float32", "float64", "int64", "int32"]
FLT = ["float32", "float64"]
INT = ["int64", "int32"]

# --- elementwise binary: every dtype pair for the arithmetic core, broadcasting shapes
binops = ["add", "sub", "mul", "div", "floor_divide", "remainder", "pow", "maximum", "minimum",
          "eq", "lt", "ge", "atan2", "fmod"]
for op in binops:
    for da in ALL:
        db = {"float32": "float64", "float64": "int32", "int64": "int64", "int32": "bool", "bool": "bool"}[da]
        pos = op in ("floor_divide", "remainder", "fmod", "pow")
        a = rand(da, (3, 4), small=op == "pow")
        b = rand(db, (4,), positive=pos, small=op == "pow")
        case(op, V(a), V(b))
    # Python-scalar operands (weak promotion) and 0-d tensors
    for da in ["float32", "int64", "int32", "bool"]:
        a = rand(da, (2, 3), positive=op == "pow")
        s = 2 if op in ("pow",) else 2.5
        case(op, V(a), s)
        case(op, V(a), 3)
        case(op, V(a), V(torch.tensor(2.0, dtype=torch.float64)))

# division / modulo corner cases
for da in INT:
    a = rand(da, (6,))
    z = torch.tensor([1, 0, 2, -3, 4, 5], dtype=DT[da])
    case("floor_divide", V(a), V(z))
    case("remainder", V(a), V(z))
    case("remainder", V(a), 0)
    case("div", V(a), V(z))
    case("div", V(a), V(z), rounding_mode="trunc")
    case("div", V(a), V(z), rounding_mode="floor")
neg = torch.tensor([-7, 7, -7, 7, 0, -1])
den = torch.tensor([2, -2, -2, 2, 3, 5])
case("floor_divide", V(neg), V(den))
case("remainder", V(neg), V(den))
case("fmod", V(neg), V(den))
fneg = torch.tensor([-7.5, 7.5, -7.5, 7.5, 0.0, -0.0, 1.0, -1.0])
fden = torch.tensor([2.0, -2.0, -2.0, 2.0, 3.0, 3.0, 0.0, 0.0])
for op in ["floor_divide", "remainder", "fmod", "div"]:
    case(op, V(fneg), V(fden))
case("div", V(fneg), V(fden), rounding_mode="floor")
case("div", V(fneg), V(fden), rounding_mode="trunc")
case("pow", V(torch.tensor([3, -2, 0, 1, -1])), V(torch.tensor([-1, -2, 2, -5, -3])))
case("pow", V(torch.tensor([3, -2])), -1)
case("pow", V(torch.tensor([3, -2])), 2.5)
case("pow", 2, V(torch.tensor([3, -2, 0])))
case("pow", 2.5, V(torch.tensor([3, -2, 0])))
case("pow", V(torch.tensor([2.0, -8.0, 0.0])), V(torch.tensor([0.5, 1.0 / 3, -1.0])))
case("mul", V(torch.tensor([2 ** 62, -(2 ** 62)])), 4)
case("add", V(torch.tensor([2 ** 31 - 1], dtype=torch.int32)), 1)
case("add", V(rand("float32", (3, 1))), V(rand("float32", (1, 4))))
case("add", V(rand("float32", (2, 1, 3))), V(rand("float32", (4, 1))))
case("add", V(rand("float32", (0, 3))), V(rand("float32", (3,))))
case("add", V(rand("float32", (3,))), V(rand("float32", (4,))))
case("add", V(rand("float32", (2, 3))), V(rand("float32", (3, 3))))
case("add", V(rand("int64", (3,))), V(rand("int64", (3,))), alpha=2)
case("add", V(rand("int64", (3,))), V(rand("int64", (3,))), alpha=0.5)
case("sub", V(rand("float32", (3,))), V(rand("float64", (3,))), alpha=1.5)
case("sub", V(rand("bool", (3,))), V(rand("bool", (3,))))
case("sub", V(rand("bool", (3,))), 1)
case("rsub", V(rand("int64", (3,))), 2)
case("rsub", V(rand("float32", (3,))), 2.5)
case("rdiv", V(rand("int64", (3,), positive=True)), 2)
case("rfloordiv", V(rand("int64", (3,), positive=True)), 7)
case("remainder", 7, V(rand("int64", (3,), positive=True)))
case("true_divide", V(rand("int32", (3,))), V(rand("int32", (3,), positive=True)))
for op in ["ne", "le", "gt"]:
    case(op, V(rand("float32", (3, 4), special=True)), V(rand("float32", (4,))))
    case(op, V(rand("int64", (5,))), 0.5)
for op in ["logical_and", "logical_or", "logical_xor"]:
    case(op, V(rand("bool", (2, 3))), V(rand("bool", (3,))))
    case(op, V(rand("float32", (4,), special=True)), V(rand("int64", (4,))))
for op in ["bitwise_and", "bitwise_or", "bitwise_xor"]:
    case(op, V(rand("int64", (5,))), V(rand("int64", (5,))))
    case(op, V(rand("bool", (5,))), V(rand("bool", (5,))))
    case(op, V(rand("int32", (5,))), 3)
    case(op, V(rand("float32", (5,))), V(rand("float32", (5,))))
case("bitwise_left_shift", V(torch.tensor([1, -8, 3, 5])), V(torch.tensor([2, 1, 70, -1])))
case("bitwise_right_shift", V(torch.tensor([1, -8, 3, 5])), V(torch.tensor([2, 1, 70, -1])))
case("maximum", V(torch.tensor([1.0, float("nan"), 2.0])), V(torch.tensor([float("nan"), 0.0, 3.0])))
case("minimum", V(torch.tensor([1.0, float("nan"), -0.0])), V(torch.tensor([float("nan"), 0.0, 0.0])))

# --- elementwise unary
unary = ["neg", "abs", "sign", "exp", "expm1", "log", "log1p", "log2", "log10", "sqrt", "rsqrt",
         "reciprocal", "square", "sin", "cos", "tan", "tanh", "asin", "acos", "atan", "sinh", "cosh",
         "sigmoid", "erf", "relu", "floor", "ceil", "round", "trunc", "logical_not", "bitwise_not",
         "isnan", "isinf", "isfinite", "positive"]
for op in unary:
    for d in ALL:
        case(op, V(rand(d, (2, 4), special=d in FLT)))
case("round", V(torch.tensor([0.5, 1.5, 2.5, -0.5, -2.5, 3.5, -3.5, 0.49999997])))
case("round", V(torch.tensor([1.2345, 2.5e-3, -1.2355, 1234.5678], dtype=torch.float64)), decimals=2)
case("round", V(torch.tensor([1234.5, 1250.0, -1350.0])), decimals=-2)
case("abs", V(torch.tensor([-(2 ** 63)])))
case("neg", V(torch.tensor([-(2 ** 31)], dtype=torch.int32)))
for op in ["gelu", "silu", "softplus", "leaky_relu"]:
    for d in ["float32", "float64", "int64"]:
        case(op, V(rand(d, (3, 3), special=d in FLT)))
case("gelu", V(rand("float32", (6,))), approximate="tanh")
case("softplus", V(rand("float32", (6,)) * 10), beta=2, threshold=5)
case("leaky_relu", V(rand("float64", (6,))), 0.2)
for d in ALL:
    case("clamp", V(rand(d, (3, 3), special=d in FLT)), 0, 1)
    case("clamp", V(rand(d, (3, 3))), min=0.5)
case("clamp", V(rand("float32", (4,), special=True)), max=0.5)
case("clamp", V(rand("float32", (4,))))
case("clamp", V(rand("float32", (4,))), min=float("nan"))
case("clamp", V(rand("float32", (2, 4))), V(rand("float32", (4,))), V(rand("float32", (2, 1)) + 1))
case("clamp", V(rand("float32", (4,))), 2.0, -2.0)
case("clip", V(rand("int64", (4,))), -1, 1)
for d in NUM:
    c = rand("bool", (3, 4))
    case("where", V(c), V(rand(d, (3, 4))), V(rand(d, (4,))))
    case("where", V(c), V(rand(d, (3, 4))), 0.5)
    case("where", V(c), 1, V(rand(d, (1, 4))))
case("where", V(rand("bool", (3,))), 1, 0.5)
case("where", V(rand("float32", (3,))), V(rand("float32", (3,))), V(rand("float32", (3,))))

# --- reductions
for d in ALL:
    x = rand(d, (3, 4, 2), special=d in FLT)
    case("sum", V(x))
    case("sum", V(x), 1)
    case("sum", V(x), [0, 2], True)
    case("sum", V(x), -1, dtype=torch.float64)
    case("prod", V(rand(d, (3, 4), small=True)))
    case("prod", V(rand(d, (3, 4), small=True)), 1, True)
    case("mean", V(x))
    case("mean", V(x), [-1, 0])
    case("max", V(x))
    case("max", V(x), 1)
    case("max", V(x), -1, True)
    case("min", V(x), 0)
    case("min", V(x))
    case("amax", V(x), [0, 1])
    case("amin", V(x), -1, True)
    case("argmax", V(x))
    case("argmax", V(x), 1)
    case("argmin", V(x), -1, True)
    case("all", V(x))
    case("all", V(x), 1)
    case("any", V(x), 0, True)
    case("var", V(x))
    case("std", V(x), 1)
    case("cumsum", V(x), 1)
    case("cumprod", V(rand(d, (3, 4), small=True)), -1)
    case("logsumexp", V(x), [1])
for d in FLT:
    x = rand(d, (4, 5))
    case("var", V(x), 0, keepdim=True)
    case("var", V(x), [1], unbiased=False)
    case("var", V(x), dim=1, correction=0)
    case("std", V(x), [0, 1], True, True)
    case("std", V(rand(d, (1,))))
    case("norm", V(x))
    case("norm", V(x), 1)
    case("norm", V(x), float("inf"))
    case("norm", V(x), 3)
    case("norm", V(x), 2, [1], True)
    case("norm", V(x), None, [0])
    case("softmax", V(x), 1)
    case("softmax", V(x), 0)
    case("log_softmax", V(x), -1)
    case("softmax", V(torch.tensor([[float("-inf"), 0.0], [float("-inf"), float("-inf")]], dtype=DT[d])), 1)
    case("logsumexp", V(torch.tensor([[float("inf"), 1.0], [float("-inf"), float("-inf")]], dtype=DT[d])), [1])
    case("cumsum", V(x), 0, dtype=torch.float64)
case("softmax", V(rand("int64", (3,))), 0)
case("softmax", V(rand("int64", (3,))), 0, dtype=torch.float64)
case("log_softmax", V(rand("float32", (2, 3, 4))), 1)
case("sum", V(torch.zeros(0, 3)), 0)
case("sum", V(torch.zeros(0, 3)))
case("mean", V(torch.zeros(0)))
case("prod", V(torch.zeros(0)))
case("max", V(torch.zeros(0)))
case("max", V(torch.zeros(0, 3)), 0)
case("max", V(torch.zeros(0, 3)), 1)
case("amax", V(torch.zeros(2, 3)), [])
case("sum", V(torch.ones(2, 3)), [])
case("argmax", V(torch.ones(2, 3)), keepdim=True)
case("argmax", V(torch.tensor([1.0, float("nan"), 3.0, float("nan")])))
case("argmin", V(torch.tensor([1.0, float("nan"), 3.0])))
case("max", V(torch.tensor([[1.0, float("nan")], [3.0, 2.0]])), 1)
case("sum", V(torch.tensor([2 ** 31 - 1, 1], dtype=torch.int32)))
case("sum", V(rand("float32", (3, 4))), 3)
case("sum", V(rand("float32", (3, 4))), [0, 0])
case("sum", V(torch.tensor(3.5)))
case("sum", V(torch.tensor(3.5)), 0)
case("sum", V(torch.tensor(3.5)), -1, True)
case("max", V(torch.tensor(3.5)), 0)
case("cumsum", V(torch.tensor(2)), 0)
case("mean", V(rand("float32", (3, 4))), 1, dtype=torch.float64)

# --- linear algebra
for d in NUM:
    case("matmul", V(rand(d, (3,), small=True)), V(rand(d, (3,), small=True)))
    case("matmul", V(rand(d, (2, 3), small=True)), V(rand(d, (3,), small=True)))
    case("matmul", V(rand(d, (3,), small=True)), V(rand(d, (3, 4), small=True)))
    case("matmul", V(rand(d, (2, 3), small=True)), V(rand(d, (3, 4), small=True)))
    case("matmul", V(rand(d, (2, 2, 3), small=True)), V(rand(d, (3, 4), small=True)))
    case("matmul", V(rand(d, (1, 2, 3), small=True)), V(rand(d, (5, 3, 2), small=True)))
    case("matmul", V(rand(d, (3,), small=True)), V(rand(d, (2, 3, 4), small=True)))
    case("matmul", V(rand(d, (2, 4, 3), small=True)), V(rand(d, (3,), small=True)))
    case("mm", V(rand(d, (4, 3), small=True), "T"), V(rand(d, (4, 5), small=True)))
    case("bmm", V(rand(d, (2, 3, 4), small=True)), V(rand(d, (2, 4, 2), small=True)))
    case("mv", V(rand(d, (3, 4), small=True)), V(rand(d, (4,), small=True)))
    case("dot", V(rand(d, (5,), small=True)), V(rand(d, (5,), small=True)))
    case("outer", V(rand(d, (3,), small=True)), V(rand(d, (4,), small=True)))
case("matmul", V(rand("float32", (40, 70))), V(rand("float32", (70, 30))))
case("matmul", V(rand("float64", (33, 65))), V(rand("float64", (65, 17), ), "T") if False else V(rand("float64", (65, 17))))
case("matmul", V(rand("float32", (2, 3))), V(rand("float32", (2, 3))))
case("matmul", V(rand("float32", (2, 3))), V(rand("float64", (3, 2))))
case("matmul", V(torch.tensor(2.0)), V(rand("float32", (3,))))
case("matmul", V(rand("float32", (3,))), V(rand("float32", (4,))))
case("matmul", V(rand("float32", (2, 2, 3))), V(rand("float32", (3, 3, 2))))
case("matmul", V(rand("bool", (2, 2))), V(rand("bool", (2, 2))))
case("matmul", V(torch.zeros(0, 3)), V(rand("float32", (3, 2))))
case("mm", V(rand("float32", (2, 3))), V(rand("float32", (2, 3))))
case("mv", V(rand("float32", (2, 3))), V(rand("float32", (4,))))
case("bmm", V(rand("float32", (2, 2, 3))), V(rand("float32", (2, 4, 3))))
case("dot", V(rand("float32", (3,))), V(rand("float32", (4,))))
case("outer", V(rand("int64", (3,))), V(rand("float32", (2,))))
case("t", V(rand("float32", (2, 3))))
case("t", V(rand("float32", (3,))))
case("linear", V(rand("float32", (4, 3))), V(rand("float32", (5, 3))), V(rand("float32", (5,))))
case("linear", V(rand("float64", (2, 4, 3))), V(rand("float64", (5, 3))))
case("linear", V(rand("float32", (3,))), V(rand("float32", (5, 3))), V(rand("float32", (5,))))

# --- shape ops (through views too)
x = rand("float32", (2, 3, 4))
for view in [None, "T", "step2"]:
    xv = V(x, view)
    case("reshape", xv, [-1])
    case("reshape", xv, [4, -1])
    case("flatten", xv)
    case("flatten", xv, 1)
    case("transpose", xv, 0, -1)
    case("permute", xv, [2, 0, 1])
    case("unsqueeze", xv, -1)
    case("squeeze", V(rand("float32", (1, 3, 1)), None))
    case("contiguous", xv)
    case("clone", xv)
    case("flip", xv, [0, 2])
    case("repeat", xv, [2, 1, 1, 2])
    case("sum", xv, -1)
    case("exp", xv)
    case("add", xv, V(rand("float32", (4,))))
case("view", V(rand("float32", (2, 3, 4))), [6, 4])
case("view", V(rand("float32", (2, 3, 4)), "T"), [-1])
case("view", V(rand("float32", (2, 3))), [4])
case("view", V(torch.zeros(0)), [0, -1])
case("reshape", V(rand("float32", (2, 3))), [5])
case("reshape", V(rand("float32", (2, 3))), [-1, -1])
case("squeeze", V(rand("float32", (1, 3, 1))), 0)
case("squeeze", V(rand("float32", (1, 3, 1))), 1)
case("squeeze", V(rand("float32", (2, 3))), 5)
case("unsqueeze", V(torch.tensor(1.0)), 0)
case("expand", V(rand("float32", (3, 1))), [2, 3, 4])
case("expand", V(rand("float32", (3, 1))), [-1, 5])
case("expand", V(rand("float32", (2, 3))), [4, 3])
case("expand_as", V(rand("int64", (3, 1))), V(rand("float32", (3, 3))))
case("size", V(rand("float32", (2, 3))))
case("size", V(rand("float32", (2, 3))), -1)
case("dim", V(rand("float32", (2, 3))))
case("numel", V(rand("float32", (2, 3))))
for d in ALL:
    a, b = rand(d, (2, 3)), rand(d, (2, 3))
    case("cat", TL(V(a), V(b)))
    case("cat", TL(V(a), V(b, "step2") if False else V(b)), 1)
    case("stack", TL(V(a), V(b)), -1)
    case("split", V(rand(d, (5, 2))), 2)
    case("chunk", V(rand(d, (6, 2))), 4)
case("cat", TL(V(rand("float32", (2,))), V(rand("int64", (3,)))))
case("cat", TL(V(rand("float32", (2, 2))), V(torch.zeros(0))))
case("cat", TL(V(rand("float32", (2, 3))), V(rand("float32", (3, 2)))))
case("cat", TL(V(rand("float32", (2, 3))), V(rand("float32", (2, 3)), "T")), 0)
case("stack", TL(V(rand("float32", (2,))), V(rand("float32", (3,)))))
case("split", V(rand("float32", (5, 2))), [1, 4])
case("split", V(rand("float32", (5, 2))), [1, 2])
case("split", V(rand("float32", (2, 5))), 2, 1)
case("flip", V(rand("int64", (3,))), [0])
case("repeat", V(torch.tensor(2.0)), [3])

# --- creation
for d in ALL + [None]:
    kw = {} if d is None else {"dtype": DT[d]}
    case("zeros", [2, 3], **kw)
    case("ones", [3], **kw)
    case("full", [2, 2], 7, **kw)
    case("eye", 3, **kw)
    case("arange", 5, **kw)
    case("zeros_like", V(rand("int32", (2,))), **kw)
    case("ones_like", V(rand("float64", (2,))), **kw)
    case("full_like", V(rand("int64", (2,))), 2.5, **kw)
case("full", [2], 2.5)
case("full", [2], True)
case("arange", 1, 10, 3)
case("arange", 0, 1, 0.3)
case("arange", 5, 0, -2)
case("arange", 0.5, 3)
case("arange", 0, 5, 0)
case("arange", 0, 5, -1)
case("arange", 0, 1, 0.1, dtype=torch.float64)
case("linspace", 0, 1, 5)
case("linspace", -2.5, 7, 7, dtype=torch.float64)
case("linspace", 0, 10, 4, dtype=torch.int64)
case("linspace", 3, 3, 1)
case("linspace", 0, 1, 0)
case("eye", 2, 4)
case("zeros", [2, -1])
case("zeros", [0, 3])
case("tensor", [[1, 2], [3, 4]])
case("tensor", [1.5, 2])
case("tensor", [True, False])
case("tensor", [True, 2])
case("tensor", [[1.0, 2.0], [3.0]])
case("tensor", [])
case("tensor", [[1, 2], [3, 4]], dtype=torch.float64)
case("tensor", 3)
case("tensor", 2.5)

# --- conversion
for d in ALL:
    x = rand(d, (2, 3), special=d in FLT)
    for to in ALL:
        case("to", V(x), DT[to])
case("to", V(torch.tensor([-2.7, 2.7, 1e20, -1e20])), torch.int64)
case("to", V(torch.tensor([2 ** 40 + 5, -(2 ** 33) - 3])), torch.int32)
case("to", V(torch.tensor([0.1, -0.0, 1e-30])), torch.bool)
for op in ["float", "double", "long", "int", "bool"]:
    case(op, V(rand("float64", (3,))))
case("item", V(torch.tensor(2.5)))
case("item", V(torch.tensor([7])))
case("item", V(torch.tensor([[True]])))
case("item", V(torch.ones(2, 3)))
case("item", V(torch.tensor(2.5, dtype=torch.float64)))
case("Float", V(torch.tensor(3)))
case("Int", V(torch.tensor(-3.7)))
case("Bool", V(torch.tensor(0.0)))
case("Float", V(torch.ones(2)))

# --- indexing, gather, masked ops
x = rand("float32", (4, 5))
xi = rand("int64", (4, 5))
for base in [V(x), V(xi), V(x, "T")]:
    case("index", base, Idx(1))
    case("index", base, Idx(-1))
    case("index", base, Idx(slice(1, None)))
    case("index", base, Idx(slice(None, None, 2), slice(1, 3)))
    case("index", base, Idx(slice(-3, -1), 0))
    case("index", base, Idx(None, Ellipsis, None))
    case("index", base, Idx(Ellipsis, 2))
    case("index", base, Idx(1, None, slice(None, None, 3)))
    case("index", base, Idx(V(torch.tensor([0, 2, -1]))))
    case("index", base, Idx(slice(None), V(torch.tensor([[1, 0], [3, 3]]))))
    case("index", base, Idx(V(torch.tensor([0, 1])), V(torch.tensor([2, 3]))))
    case("index", base, Idx(V(base.get().gt(0) if base.view is None else base.get().gt(0).contiguous())))
    case("index", base, Idx(slice(None), V(torch.tensor([True, False, True, False]))))
    case("index", base, Idx(7))
    case("index", base, Idx(0, 0, 0))
    case("index", base, Idx(slice(10, 20)))
case("index", V(rand("float32", (2, 3, 4))), Idx(V(torch.tensor([0, 1])), slice(None), V(torch.tensor([1, 3]))))
case("index", V(rand("float32", (2, 3, 4))), Idx(slice(None), V(torch.tensor([0, 2])), V(torch.tensor([1, 3]))))
case("index", V(rand("float32", (3,))), Idx(V(torch.tensor([True, False]))))
case("index", V(rand("float32", (3,))), Idx(V(torch.tensor([3]))))
case("index", V(torch.tensor(5.0)), Idx(None))
case("index", V(rand("float32", (2, 3))), Idx(V(torch.tensor([1.0]))))
for base, val in [(x, 9.5), (xi, 7), (x, V(rand("float32", (5,)))), (xi, V(rand("float32", (1,))))]:
    case("index_put_", V(base), Idx(1), val)
    case("index_put_", V(base), Idx(slice(1, 3)), val)
    case("index_put_", V(base), Idx(slice(None), slice(None, None, 2)), val if not isinstance(val, V) else 1.5)
    case("index_put_", V(base), Idx(V(base.gt(0))), val if not isinstance(val, V) else -1)
    case("index_put_", V(base), Idx(V(torch.tensor([0, 3]))), val)
case("index_put_", V(x), Idx(slice(0, 2)), V(rand("float32", (3,))))
case("index_put_", V(x), Idx(V(torch.tensor([True, False, True, False]))), V(rand("float32", (2, 5))))
case("index_put_", V(x), Idx(V(torch.tensor([5]))), 1.0)
for d in ALL:
    s = rand(d, (3, 4))
    case("gather", V(s), 1, V(torch.tensor([[0, 3], [1, 1], [2, 0]])))
    case("gather", V(s), 0, V(torch.tensor([[2, 0, 1, 1]])))
    case("index_select", V(s), 1, V(torch.tensor([3, 0, 0])))
    case("index_select", V(s), 0, V(torch.tensor([2])))
    case("masked_fill", V(s), V(rand("bool", (3, 4))), 1)
    case("masked_fill", V(s), V(rand("bool", (4,))), 0.5)
    case("masked_select", V(s), V(rand("bool", (3, 4))))
case("gather", V(rand("float32", (2, 3))), 1, V(torch.tensor([[5, 0]])))
case("index_select", V(rand("float32", (3,))), 0, V(torch.tensor([4])))
case("masked_fill", V(rand("float32", (3,))), V(rand("bool", (2, 3))), 0.0)
case("masked_fill", V(rand("float32", (3,))), V(rand("float32", (3,))), 0.0)
case("masked_fill", V(rand("float32", (3,))), V(rand("bool", (3,))), V(torch.tensor(4.0)))
case("masked_fill", V(rand("float32", (3,))), V(rand("bool", (3,))), V(torch.tensor([4.0, 5.0, 6.0])))

# --- in place (augmented assignment semantics)
for op in ["add_", "sub_", "mul_", "div_", "floor_divide_", "remainder_", "pow_"]:
    for da, db in [("float32", "float64"), ("float32", "int64"), ("int64", "int32"), ("int32", "int64"),
                   ("int64", "float32"), ("float64", "float32")]:
        pos = op in ("floor_divide_", "remainder_", "pow_")
        case(op, V(rand(da, (2, 3), small=op == "pow_")), V(rand(db, (3,), positive=pos, small=op == "pow_")))
    case(op, V(rand("float32", (3,))), V(rand("float32", (2, 3), positive=True)))
    case(op, V(rand("int64", (3,))), 2)
for op in ["bitwise_and_", "bitwise_or_", "bitwise_xor_"]:
    case(op, V(rand("int64", (4,))), V(rand("int64", (4,))))
    case(op, V(rand("bool", (4,))), V(rand("bool", (4,))))
case("add_", V(rand("float32", (3,))), 1.5, alpha=2)
case("clamp_", V(rand("float32", (5,))), -0.5, 0.5)
case("relu_", V(rand("float64", (5,))))
case("neg_", V(rand("int32", (5,))))
case("fill_", V(rand("int64", (2, 2))), 2.7)
case("zero_", V(rand("float32", (2, 2))))
case("copy_", V(rand("int32", (2, 3))), V(rand("float32", (3,))))
case("masked_fill_", V(rand("float32", (2, 3))), V(rand("bool", (3,))), -1.0)
case("masked_fill_", V(rand("float32", (3,))), V(rand("bool", (2, 3))), -1.0)

# --- softmax edge rows: +inf, NaN, all -inf, huge spread
edge = torch.tensor([[float("inf"), 1.0, 0.0], [float("nan"), 0.0, 1.0], [float("-inf")] * 3,
                     [-200.0, 0.0, 50.0], [-100.0, -100.5, -300.0]])
for d in FLT:
    case("softmax", V(edge.to(DT[d])), 1)
    case("log_softmax", V(edge.to(DT[d])), 1)
    case("softmax", V(edge.to(DT[d])), 0)

# --- keyword spellings commonly used in programs
xk = rand("float32", (3, 4))
case("norm", V(xk), dim=1)
case("norm", V(xk), p=1, dim=[0], keepdim=True)
case("sum", V(xk), dim=0, keepdim=True)
case("mean", V(xk), dim=[0, 1])
case("softmax", V(xk), dim=-1)
case("log_softmax", V(xk), dim=0, dtype=torch.float64)
case("std", V(xk), dim=0)
case("var", V(xk), dim=1, keepdim=True)
case("argmax", V(xk), dim=1, keepdim=True)
case("max", V(xk), dim=1, keepdim=True)
case("cat", TL(V(xk), V(xk)), dim=1)
case("transpose", V(xk), dim0=0, dim1=1)
case("cumsum", V(xk), dim=1)
case("clamp", V(xk), min=-0.5, max=0.5)
case("where", V(xk.gt(0)), V(xk), 0.0)
case("full", (2, 3), float("-inf"))
case("zeros", (2, 3), dtype=torch.int32)

# --- printing: repr(tensor) and Python float repr
reprs = []


def rep(t):
    v = V(t)
    reprs.append({"tensor": v.enc(), "repr": repr(t)})


for d in ALL:
    rep(rand(d, (2, 3), special=d in FLT))
    rep(rand(d, ()))
    rep(rand(d, (0,)))
    rep(rand(d, (2, 0, 3)))
    rep(rand(d, (2, 2, 3)))
    rep(rand(d, (40,)))
    rep(rand(d, (1200,)))
    rep(rand(d, (30, 40)))
    rep(rand(d, (8, 8, 20)))
rep(torch.tensor([1.0, 2.0]))
rep(torch.tensor([1.5, 2.25]))
rep(torch.tensor([1e10, 1.0]))
rep(torch.tensor([1e-5, 1.0]))
rep(torch.tensor([0.1, 123456.7]))
rep(torch.tensor([123456789.0, 1.0]))
rep(torch.tensor([float("nan"), float("inf"), -0.0, 1.0]))
rep(torch.tensor([float("nan"), float("-inf")]))
rep(torch.tensor([0.0, -0.0]))
rep(torch.tensor([1e-30, 1e30], dtype=torch.float64))
rep(torch.tensor([-1.5, 1000.25, 3.0]))
rep(torch.tensor([2 ** 62, -5]))
rep(torch.tensor([[True, False], [False, True]]))
rep(torch.arange(2000.0))
rep(torch.arange(1001).reshape(1001, 1))
rep(torch.tensor(3, dtype=torch.float64))
rep(torch.tensor(0.3333333))
rep(torch.linspace(-1, 1, 25).reshape(5, 5))
floats = [2.0, 0.1, 1e-5, 1.5e16, 1e15, 1e16, -0.0, 0.0001, 123.456, 1 / 3, 2.5e-7, 1e300, 5e-324,
          float("nan"), float("inf"), float("-inf"), 100.0, 1234567.0, 0.30000000000000004]
float_reprs = [{"value": enc_float(x), "repr": repr(x)} for x in floats]

with open(os.path.join(HERE, "cases.json"), "w") as f:
    json.dump({"torch_version": torch.__version__, "cases": cases, "reprs": reprs,
               "float_reprs": float_reprs}, f, indent=0)
np.savez(os.path.join(HERE, "inputs.npz"), **inputs)
np.savez(os.path.join(HERE, "outputs.npz"), **outputs)
print(f"{len(cases)} cases ({sum('error' in c for c in cases)} expected errors), "
      f"{len(inputs)} inputs, {len(outputs)} outputs, torch {torch.__version__}")
