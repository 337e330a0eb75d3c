"""The pyjit package: scripting and tracing from Python, every argument kind, the exception
classes, threads, zero-copy results and inspection. Run by `cargo xtask test`."""

from __future__ import annotations

import inspect
import threading

import numpy as np
import pytest

import pyjit

from typing import List, Optional, Tuple

# Functions compiled by the tests. They live at module level so that pyjit finds their source
# (and the helpers and constants they use) in this file.

EPS = 0.5


def helper(x):
    return x + EPS


def uses_helper(x, n: int = 2):
    return helper(x) * n


def _not_compilable():
    return {1, 2}  # a set: not in the language


# Module-level names that the function below uses only as its own parameter and local.
shadow = _not_compilable()
doubled = _not_compilable()


def uses_local_names(shadow):
    doubled = shadow * 2
    return doubled + EPS


def cond(x, threshold: float):
    if x.sum() > threshold:
        return x * 2
    return x + 1


def pick(x, i: int):
    return x[i]


def add(x, y):
    return x + y


def np_ramp(n, step):
    # A Numba-style kernel: no annotations; the call's arguments type the parameters.
    out = np.zeros((n, 2), dtype=np.float64)
    for i in range(n):
        out[i, 0] = i * step
        out[i, 1] = np.float64(i) - step
    return out


def np_scaled(a, k):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = np.tanh(a[i]) * k
    return out


def int_div(a: int, b: int) -> int:
    return a // b


def checked(n: int) -> int:
    assert n >= 0, "n must be non-negative"
    return n


def raises(kind: int) -> int:
    if kind == 0:
        raise ValueError("bad value")
    if kind == 1:
        raise TypeError("bad type")
    if kind == 2:
        raise RuntimeError("bad state")
    return kind


def scalars(a: int, b: float, c: bool) -> Tuple[float, bool]:
    return a * b, not c


def ratio(n: int, x: float, loud: bool) -> float:
    if loud:
        print("n is", n)
    return x / n


def step(n: int, up: bool) -> int:
    return n + 1 if up else n - 1


def positive(x: float) -> bool:
    return x > 0.0


def total(xs: List[float]) -> float:
    s = 0.0
    for v in xs:
        s += v
    return s


def stack_sum(xs: List[Tensor]) -> Tensor:  # noqa: F821 (pyjit binds Tensor)
    out = xs[0]
    for i in range(1, len(xs)):
        out = out + xs[i]
    return out


def maybe(x, y: Optional[float] = None):
    if y is None:
        return x
    return x * y


def pair(t: Tuple[int, float]) -> float:
    return t[0] + t[1]


def bump(x):
    x.add_(1.0)
    return x


def transpose(x):
    return x.t()


def talk(n: int) -> int:
    print("n is", n)
    return n + 1


def elementwise(x):
    return x * 2 + 1


def compare(x, y):
    return x > y


def squash(x):
    return x.tanh() * 0.5 + x


# --------------------------------------------------------------------------------------- script


def line_of(fn, text):
    """The file line of the first source line of `fn` containing `text`."""
    lines, start = inspect.getsourcelines(fn)
    for i, l in enumerate(lines):
        if text in l:
            return start + i
    raise AssertionError(text)


def test_decorator_and_call_form():
    f = pyjit.script(cond)
    x = np.array([1.0, 2.0], dtype=np.float32)
    np.testing.assert_array_equal(f(x, 0.5), [2.0, 4.0])
    np.testing.assert_array_equal(f(x, 100.0), [2.0, 3.0])

    @pyjit.script
    def local_scaled(x):
        return x * 3

    np.testing.assert_array_equal(local_scaled(x), [3.0, 6.0])
    assert f.__name__ == "cond"
    assert "scripted" in repr(f)


def test_numba_style_kernels_take_their_arguments_types():
    ramp = pyjit.script(np_ramp)
    np.testing.assert_array_equal(ramp(3, 2), np_ramp(3, 2))
    np.testing.assert_allclose(ramp(2, 0.5), np_ramp(2, 0.5))
    np.testing.assert_allclose(ramp(n=2, step=1.5), np_ramp(2, 1.5))
    assert ramp(3, 2).dtype == np.float64
    sigs = ramp.signatures
    assert any("int, int" in s for s in sigs) and any("float" in s for s in sigs), sigs
    # `range(n)` needs an int: a tensor for `n` reports the compile error.
    with pytest.raises(pyjit.CompileError, match="range"):
        ramp(np.array([3]), 2)
    scaled = pyjit.script(np_scaled)
    a = np.array([0.5, -1.0, 2.0], dtype=np.float32)
    for k in (3, 0.25):
        got = scaled(a, k)
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, np_scaled(a, k), rtol=1e-6)


def test_module_functions_and_constants_come_along():
    f = pyjit.script(uses_helper)
    np.testing.assert_array_equal(f(np.array([1.0])), [3.0])
    np.testing.assert_array_equal(f(np.array([1.0]), n=3), [4.5])


def test_parameters_and_locals_do_not_pull_in_module_names():
    # `shadow`/`doubled` are also module-level names bound by code pyjit cannot compile; the
    # function's own `shadow` and `doubled` are local (Python's scoping), so only EPS comes along.
    f = pyjit.script(uses_local_names)
    np.testing.assert_array_equal(f(np.array([1.0])), [2.5])


@pytest.mark.parametrize(
    "dtype", [np.float32, np.float64, np.int32, np.int64, np.bool_]
)
def test_every_array_dtype_in_and_out(dtype):
    f = pyjit.script(add)
    x = np.array([[1, 0], [1, 1]], dtype=dtype)
    y = np.array([[0, 1], [1, 0]], dtype=dtype)
    r = f(x, y)
    assert isinstance(r, np.ndarray)
    expected = x + y if dtype is not np.bool_ else (x.astype(np.int64) + y).astype(bool)
    assert r.dtype == expected.dtype
    np.testing.assert_array_equal(r, expected)


def test_zero_dim_non_contiguous_and_empty_arrays():
    f = pyjit.script(elementwise)
    np.testing.assert_array_equal(f(np.array(2.0)), np.array(5.0))
    base = np.arange(12, dtype=np.float64).reshape(3, 4)
    view = base[:, ::2]
    assert not view.flags.c_contiguous
    np.testing.assert_array_equal(f(view), view * 2 + 1)
    empty = f(np.zeros((0, 3), dtype=np.float32))
    assert empty.shape == (0, 3)


def test_python_scalars_lists_tuples_and_none():
    assert pyjit.script(scalars)(3, 0.5, False) == (1.5, True)
    assert pyjit.script(total)([1.0, 2.5, 3]) == 6.5
    assert pyjit.script(pair)((2, 0.25)) == 2.25
    m = pyjit.script(maybe)
    x = np.array([2.0])
    np.testing.assert_array_equal(m(x), [2.0])
    np.testing.assert_array_equal(m(x, None), [2.0])
    np.testing.assert_array_equal(m(x, 3.0), [6.0])
    np.testing.assert_array_equal(m(x, y=3), [6.0])
    s = pyjit.script(stack_sum)
    xs = [np.ones(2, dtype=np.float32) * k for k in range(3)]
    np.testing.assert_array_equal(s(xs), [3.0, 3.0])
    # NumPy scalars are their Python values.
    assert pyjit.script(scalars)(np.int64(3), np.float32(0.5), np.bool_(True)) == (1.5, False)


def test_repeated_scalar_calls_match_first_calls(capsys):
    """A scalar function called again with its first signature takes the per-call fast path
    (arguments read straight from the tuple); every call must give what a fresh function's
    first call (the general path) gives: value, exception class and message, printed text."""

    def outcome(f, *args):
        try:
            return ("ok", f(*args), capsys.readouterr().out)
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            return (type(e), str(e), capsys.readouterr().out)

    warm = pyjit.script(ratio)
    for _ in range(3):
        assert outcome(warm, 4, 3.0, False) == ("ok", 0.75, "")
    import enum

    class Two(enum.IntEnum):
        TWO = 2

    class F(float):
        pass

    cases = [
        (8, 2.0, False),
        (8, 2, False),  # an int for the float parameter
        (3, 1.5, True),  # prints
        (0, 1.0, False),  # ZeroDivisionError
        (2**70, 1.0, False),  # does not fit 64 bits
        (-(2**63), 1.0, False),
        (True, 1.0, False),  # a bool for the int parameter
        (2, 1.0, 1),  # an int for the bool parameter
        (Two.TWO, F(3.0), False),  # subclasses take the general path
        (2.0, 1.0, False),  # a float for the int parameter
        (2, "x", False),
    ]
    for args in cases:
        cold = outcome(pyjit.script(ratio), *args)
        assert outcome(warm, *args) == cold, args
    assert outcome(warm, 3, 1.5, True) == ("ok", 0.5, "n is 3\n")
    # Too few and too many arguments (RuntimeError, as TorchScript raises), and keywords.
    for args in [(1, 2.0), (1, 2.0, False, 4)]:
        cold = outcome(pyjit.script(ratio), *args)
        assert cold[0] is RuntimeError
        assert outcome(warm, *args) == cold, args
    assert warm(2, x=1.0, loud=False) == 0.5
    # int and bool results of the per-call path: the same values and types as a first call.
    for f, calls in [
        (step, [(3, True), (3, False), (-(2**63), False), (2**63 - 1, True)]),
        (positive, [(1.5,), (-0.0,), (float("nan"),), (2,)]),
    ]:
        w = pyjit.script(f)
        w(*calls[0])
        w(*calls[0])
        for args in calls:
            cold = pyjit.script(f)(*args)
            got = w(*args)
            assert (type(got), got) == (type(cold), cold), (f.__name__, args)


def test_vectorcall_and_tp_call_agree(capsys):
    """Calls of a `pyjit.Function` take the vectorcall protocol (arguments where the caller has
    them, no tuple); `type(f).__call__` still takes `tp_call`. Both must give the same values,
    exceptions and printed text, with positional, keyword, starred and double-starred
    arguments, on the per-call path and the general one."""
    import platform

    f = pyjit.script(ratio)
    if platform.python_implementation() == "CPython":
        # The type's layout was recognized: without it every call would take tp_call.
        assert pyjit._pyjit._vectorcall_enabled()

    def outcome(call):
        try:
            return ("ok", call(), capsys.readouterr().out)
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            return (type(e), str(e), capsys.readouterr().out)

    calls = [
        ((4, 3.0, False), {}),
        ((4, 3.0, False), {}),  # again: the per-call path
        ((3, 1.5, True), {}),  # prints
        ((4,), {"x": 3.0, "loud": False}),
        ((), {"n": 4, "x": 3.0, "loud": False}),
        ((), {"loud": False, "x": 2.0, "n": 1}),
        ((4, 3.0), {}),  # too few
        ((4, 3.0, False, 1), {}),  # too many
        ((4, 3.0), {"n": 1, "loud": False}),  # n twice
        ((4, 3.0, False), {"z": 1}),  # unknown keyword
        ((0, 1.0, False), {}),  # ZeroDivisionError
        ((2**70, 1.0, False), {}),
        (("4", 3.0, False), {}),
    ]
    for args, kwargs in calls:
        vector = outcome(lambda: f(*args, **kwargs))
        tp_call = outcome(lambda: type(f).__call__(f, *args, **kwargs))
        assert vector == tp_call, (args, kwargs)
        if not kwargs and len(args) == 3:
            # Without a starred call the compiler emits a plain positional vectorcall.
            assert outcome(lambda: f(args[0], args[1], args[2])) == vector, args
    assert f(4, x=3.0, loud=False) == 0.75


def test_results_view_the_runtime_buffer():
    f = pyjit.script(elementwise)
    r = f(np.arange(4, dtype=np.float32))
    assert isinstance(r.base, pyjit.RuntimeBuffer)
    assert r.base.data_ptr == r.__array_interface__["data"][0]
    assert r.flags.writeable
    # A strided result keeps its strides: no copy to make it contiguous.
    t = pyjit.script(transpose)(np.arange(6, dtype=np.float64).reshape(2, 3))
    assert t.shape == (3, 2)
    assert t.strides == (8, 24)
    assert isinstance(t.base, pyjit.RuntimeBuffer)
    np.testing.assert_array_equal(t, np.arange(6.0).reshape(2, 3).T)
    # The array keeps the buffer alive after everything else is gone.
    del f
    np.testing.assert_array_equal(r, [1.0, 3.0, 5.0, 7.0])


def test_arguments_are_viewed_not_copied():
    f = pyjit.script(bump)
    x = np.zeros(4, dtype=np.float32)
    r = f(x)
    np.testing.assert_array_equal(x, [1.0, 1.0, 1.0, 1.0]), "in place, as PyTorch"
    assert np.shares_memory(r, x), "the result is the argument's memory"
    base = np.zeros((3, 4))
    f(base[:, ::2])
    np.testing.assert_array_equal(base, [[1, 0, 1, 0]] * 3)
    ints = np.zeros((2, 2), dtype=np.int64).T
    pyjit.script(add)(ints, ints)
    flags = np.array([True, False])
    assert pyjit.script(compare)(flags, np.array([False, False])).tolist() == [True, False]


def test_arrays_the_runtime_cannot_view_are_copied():
    f = pyjit.script(bump)
    ro = np.zeros(3)
    ro.flags.writeable = False
    np.testing.assert_array_equal(f(ro), [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(ro, [0.0, 0.0, 0.0]), "a read-only array is never written"
    np.testing.assert_array_equal(pyjit.script(elementwise)(np.arange(3.0)[::-1]), [5.0, 3.0, 1.0])
    big = np.arange(3, dtype=">f8")
    np.testing.assert_array_equal(pyjit.script(elementwise)(big), [1.0, 3.0, 5.0])
    odd = np.array([0, 2, 1], dtype=np.uint8).view(np.bool_)
    got = pyjit.script(compare)(odd, np.array([False, False, False]))
    assert got.tolist() == [False, True, True], "non-zero bytes are True, as NumPy reads them"


def test_print_goes_to_python_stdout(capsys):
    assert pyjit.script(talk)(4) == 5
    assert capsys.readouterr().out == "n is 4\n"


# ------------------------------------------------------------------------------------ exceptions


def test_run_time_errors_raise_pytorchs_classes_with_the_real_line():
    with pytest.raises(IndexError) as e:
        pyjit.script(pick)(np.zeros(3), 7)
    msg = str(e.value)
    assert f"{__file__}:{line_of(pick, 'return x[i]')}:" in msg, msg
    assert "return x[i]" in msg and "^" in msg, msg
    with pytest.raises(RuntimeError, match="size of tensor"):
        pyjit.script(add)(np.zeros(3), np.zeros(4))
    with pytest.raises(ZeroDivisionError):
        pyjit.script(int_div)(1, 0)
    with pytest.raises(AssertionError, match="n must be non-negative"):
        pyjit.script(checked)(-1)
    r = pyjit.script(raises)
    with pytest.raises(ValueError, match="bad value"):
        r(0)
    with pytest.raises(TypeError, match="bad type"):
        r(1)
    with pytest.raises(RuntimeError, match="bad state"):
        r(2)
    assert r(3) == 3


def test_argument_errors_are_runtime_errors_naming_the_parameter():
    f = pyjit.script(cond)
    with pytest.raises(RuntimeError, match="argument 'threshold'"):
        f(np.zeros(2), "high")
    with pytest.raises(RuntimeError, match="at most 2 argument"):
        f(np.zeros(2), 1.0, 2.0)
    with pytest.raises(RuntimeError, match="missing value for argument 'threshold'"):
        f(np.zeros(2))
    with pytest.raises(TypeError, match="float16"):
        f(np.zeros(2, dtype=np.float16), 1.0)
    with pytest.raises(TypeError, match="cannot pass"):
        f(object(), 1.0)


def test_calls_after_the_first_signature_is_kept():
    # Two calls of one positional signature set the per-call fast path; every other call must
    # still bind, convert and re-specialize as the first calls did.
    s = pyjit.script(scalars)
    assert s(2, 1.5, True) == (3.0, False)
    assert s(2, 1.5, True) == (3.0, False)
    assert s(3, 2.0, False) == (6.0, True)
    assert s(3, 2, False) == (6.0, True)  # an int for the float parameter
    assert s(c=True, b=0.5, a=4) == (2.0, False)  # keywords
    with pytest.raises(RuntimeError, match="argument 'a'"):
        s(1.5, 1.0, True)  # a float for the int parameter
    assert s(2, 1.5, True) == (3.0, False)

    f = pyjit.script(uses_helper)
    x32 = np.array([1.0, 2.0], dtype=np.float32)
    for _ in range(3):
        r = f(x32, 3)
        assert r.dtype == np.float32 and np.array_equal(r, [4.5, 7.5])
    assert np.array_equal(f(x32), [3.0, 5.0])  # the default
    r = f(np.array([1.0, 2.0]), 3)  # another dtype
    assert r.dtype == np.float64 and np.array_equal(r, [4.5, 7.5])
    r = f(np.ones((2, 2), dtype=np.float32), 2)  # another rank
    assert r.shape == (2, 2) and np.array_equal(r, np.full((2, 2), 3.0))
    r = f(np.arange(3, dtype=np.int64), 1)  # an integer tensor
    assert np.allclose(r, [0.5, 1.5, 2.5])
    with pytest.raises(RuntimeError, match="argument 'n'"):
        f(x32, "three")
    assert np.array_equal(f(x32, 3), [4.5, 7.5])


def not_scriptable(x):
    y = [i for i in range(3)]  # noqa: F841
    with open("f") as fh:  # noqa: F841
        pass
    return x


def two_errors(x):
    a = undefined_one  # noqa: F821
    return x + undefined_two  # noqa: F821


def test_compile_errors_carry_every_diagnostic_at_the_real_line():
    with pytest.raises(pyjit.CompileError) as e:
        pyjit.script(two_errors)
    d = e.value.diagnostics
    assert len(d) >= 2, d
    assert f"{__file__}:{line_of(two_errors, 'undefined_one')}:" in d[0], d[0]
    assert f"{__file__}:{line_of(two_errors, 'undefined_two')}:" in d[1], d[1]
    assert isinstance(e.value, RuntimeError), "as TorchScript's compile errors"
    with pytest.raises(pyjit.CompileError, match="with"):
        pyjit.script(not_scriptable)


def _module_from(tmp_path, name, text):
    import importlib.util
    import sys

    path = tmp_path / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def test_numba_style_kernels_without_numpy_names_compile(tmp_path):
    """A kernel of plain loops that uses neither `np` nor torch, in a module that imports NumPy
    (`scalar_loop` of peerbench's NumPy twins), compiles as NumPy-style code, as `pyjit run`
    compiles the file: its parameters take the types of the call's arguments."""
    kernel = (
        "def collatz_total(n):\n"
        "    total = 0\n"
        "    for i in range(1, n):\n"
        "        x = i\n"
        "        while x != 1:\n"
        "            x = x // 2 if x % 2 == 0 else 3 * x + 1\n"
        "            total += 1\n"
        "    return total\n"
    )
    mod = _module_from(tmp_path, "numba_style_kernel", "import numpy as np\n\n\n" + kernel)
    f = pyjit.script(mod.collatz_total)
    assert f(1000) == mod.collatz_total(1000) == 59431
    assert f(1000) == 59431
    broken = _module_from(
        tmp_path,
        "numba_style_broken",
        "import numpy as np\n\n\n" + kernel.replace("return total", "return total + missing"),
    )
    # As every NumPy-style function's, its compile error is raised by the call that compiles
    # it (the parameters' types come from the arguments).
    with pytest.raises(pyjit.CompileError, match="missing"):
        pyjit.script(broken.collatz_total)(10)
    # Without NumPy imported the module is TorchScript: `n` is a Tensor there.
    plain = _module_from(tmp_path, "torchscript_kernel", kernel)
    with pytest.raises(pyjit.CompileError, match="no annotation"):
        pyjit.script(plain.collatz_total)


def test_numba_style_calls_of_functions_that_also_compile_as_torchscript(tmp_path):
    """A function without annotations in a module that imports NumPy and not torch, which
    also compiles as TorchScript (`add1`, `scale`): calls passing Python scalars where the
    TorchScript version takes Tensors run the NumPy-style version (as Numba and `pyjit run`
    run them); calls TorchScript accepts are unchanged; a torch-style function given a number
    by mistake keeps TorchScript's error."""
    mod = _module_from(
        tmp_path,
        "numba_style_also_torchscript",
        "import numpy as np\n\n\n"
        "def add1(n):\n    return n + 1\n\n\n"
        "def scale(x, a):\n    return x * a\n\n\n"
        "def total(x):\n    return x.sum(dim=0)\n",
    )
    add1 = pyjit.script(mod.add1)
    for v in (5, 2.5, True, -(2**40)):
        got = add1(v)
        assert got == mod.add1(v) and type(got) is type(mod.add1(v)), v
    assert add1(n=7) == 8
    arr = np.arange(3.0)
    np.testing.assert_array_equal(add1(arr), arr + 1)
    scale = pyjit.script(mod.scale)
    x = np.arange(4, dtype=np.float32)
    got = scale(x, 2.5)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, x * np.float32(2.5))
    np.testing.assert_array_equal(scale(x, a=3), x * 3)
    np.testing.assert_array_equal(scale(x, x), x * x)
    total = pyjit.script(mod.total)
    np.testing.assert_array_equal(total(np.ones((2, 3), np.float32)), [2.0, 2.0, 2.0])
    with pytest.raises(RuntimeError, match="Expected a value of type 'Tensor' for argument 'x'"):
        total(5)


def test_repeated_numpy_style_scalar_calls_match_first_calls(tmp_path, capsys):
    """A NumPy-style function called again with the scalar types of its first typed version
    takes the per-call path of that version; every call must give what a fresh function's
    first call gives (value and its type, exception class and message, printed text)."""
    mod = _module_from(
        tmp_path,
        "numpy_style_scalars",
        "import numpy as np\n\n\n"
        "def kernel(n, x, loud):\n"
        "    s = np.float64(0.0)\n"
        "    for i in range(n):\n"
        "        s += x * i\n"
        "    if loud:\n"
        "        print('n is', n)\n"
        "    return float(s) / n\n",
    )

    def outcome(f, *args):
        try:
            r = f(*args)
            return ("ok", type(r), r, capsys.readouterr().out)
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            return (type(e), str(e), capsys.readouterr().out)

    warm = pyjit.script(mod.kernel)
    for _ in range(3):
        assert outcome(warm, 4, 0.5, False) == ("ok", float, 0.75, "")
    cases = [
        (4, 0.5, False),
        (3, 1.5, True),  # prints
        (0, 1.0, False),  # ZeroDivisionError
        (4, 2, False),  # an int for x: another version
        (4, 0.5, 1),  # an int for loud
        (True, 0.5, False),  # a bool for n
        (2.0, 0.5, False),  # a float for n: range() rejects it
        (2**70, 1.0, False),
        (4, 0.5, False),
    ]
    for args in cases:
        cold = outcome(pyjit.script(mod.kernel), *args)
        assert outcome(warm, *args) == cold, args


def test_objects_without_source_are_rejected():
    with pytest.raises(TypeError):
        pyjit.script(len)
    with pytest.raises(TypeError):
        pyjit.script(pyjit.script(cond))


# ------------------------------------------------------------------------------------ inspection


def test_graph_signatures_ir_and_asm():
    f = pyjit.script(cond)
    assert "func @cond" in f.graph
    assert f.signatures == []
    f(np.zeros(2, dtype=np.float32), 1.0)
    f(np.zeros((2, 2)), 1)
    assert f.signatures == [
        "(Tensor(float32, rank 1), float)",
        "(Tensor(float64, rank 2), float)",
    ]
    ir = f.inspect_ir(np.zeros(2, dtype=np.float32), 1.0)
    assert "Tensor[float32, 1]" in ir, ir
    asm = f.inspect_asm(np.zeros(2, dtype=np.float32), 1.0)
    assert "; function" in asm, asm


# --------------------------------------------------------------------------------------- threads


def test_one_function_from_many_threads():
    f = pyjit.script(uses_helper)
    errors = []

    def work(k):
        try:
            for i in range(50):
                x = np.full(16, float(k * 100 + i))
                np.testing.assert_array_equal(f(x), (x + 0.5) * 2)
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert f.signatures == ["(Tensor(float64, rank 1), int)"], "one shared cache entry"


def test_traced_function_from_many_threads():
    f = pyjit.trace(cond, (np.array([1.0, 2.0]), 0.0))
    results = {}

    def work(k):
        sign = 1.0 if k % 2 else -1.0
        x = np.array([sign, 2 * sign])
        results[k] = [f(x, 0.0) for _ in range(20)]

    threads = [threading.Thread(target=work, args=(k,)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k, rs in results.items():
        sign = 1.0 if k % 2 else -1.0
        x = np.array([sign, 2 * sign])
        expect = x * 2 if x.sum() > 0 else x + 1
        for r in rs:
            np.testing.assert_array_equal(r, expect)


# ----------------------------------------------------------------------------------------- trace


def test_trace_guards_retrace_and_no_guards_is_torch_jit_trace():
    x, y = np.array([1.0, 2.0]), np.array([-1.0, -2.0])
    g = pyjit.trace(cond, (x, 0.0))
    assert g.traced and "guard" in g.graph
    np.testing.assert_array_equal(g(y, 0.0), [0.0, -1.0])
    u = pyjit.trace(cond, (x, 0.0), guards=False)
    np.testing.assert_array_equal(u(y, 0.0), [-2.0, -4.0])
    assert g.warnings, "the guarded comparison is a TracerWarning"
    assert "Tensor[float64, 1]" in g.inspect_ir(x, 0.0)


def test_trace_check_inputs():
    x, y = np.array([1.0, 2.0]), np.array([-1.0, -2.0])
    with pytest.raises(pyjit.TracingCheckError):
        pyjit.trace(cond, (x, 0.0), check_inputs=[(y, 0.0)])
    ok = pyjit.trace(cond, (x, 0.0), check_inputs=[(x * 3, 0.0)])
    np.testing.assert_array_equal(ok(x, 0.0), [2.0, 4.0])


def test_trace_single_input_and_errors():
    t = pyjit.trace(elementwise, np.ones(2))
    np.testing.assert_array_equal(t(np.zeros(3)), [1.0, 1.0, 1.0])
    with pytest.raises(IndexError):
        pyjit.trace(pick, (np.zeros(3), 9))


# ----------------------------------------------------------------------------------------- torch

try:
    import torch
except ImportError:  # torch is optional: these tests skip without it
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")


def torch_ops(x, y):
    return torch.relu(x) + y.sum()


@needs_torch
def test_torch_tensors_in_and_torch_tensors_out():
    f = pyjit.script(add)
    x = torch.arange(4, dtype=torch.float32)
    r = f(x, torch.ones(4))
    assert isinstance(r, torch.Tensor) and r.dtype == torch.float32
    assert torch.equal(r, x + 1)
    w = torch.ones(3, requires_grad=True)
    assert torch.equal(f(w, w), torch.full((3,), 2.0))
    g = pyjit.script(torch_ops)
    a, b = torch.randn(5, dtype=torch.float64), torch.randn(2, dtype=torch.float64)
    assert torch.allclose(g(a, b), torch_ops(a, b))
    # The NumPy spelling of the same function still returns NumPy arrays.
    assert isinstance(g(a.numpy(), b.numpy()), np.ndarray)


@needs_torch
def test_in_place_writes_reach_the_torch_tensor():
    t = torch.zeros(3)
    r = pyjit.script(bump)(t)
    assert torch.equal(t, torch.ones(3))
    assert isinstance(r, torch.Tensor) and r.data_ptr() == t.data_ptr()


@needs_torch
def test_torch_exception_classes_match_eager_pytorch():
    cases = [
        (pick, (torch.zeros(3), 7)),
        (add, (torch.zeros(3), torch.zeros(4))),
        (int_div, (1, 0)),
        (checked, (-1,)),
        (raises, (0,)),
        (raises, (1,)),
    ]
    for fn, args in cases:
        with pytest.raises(Exception) as eager:
            fn(*args)
        with pytest.raises(Exception) as compiled:
            pyjit.script(fn)(*args)
        assert type(compiled.value) is type(eager.value), (fn.__name__, compiled.value)


# ------------------------------------------------------------------------------------ save/load


def test_save_load_round_trip(tmp_path):
    f = pyjit.script(uses_helper)
    x = np.array([1.0, 2.0], dtype=np.float32)
    f(x)
    path = tmp_path / "f.pyjit"
    pyjit.save(f, str(path))
    g = pyjit.load(str(path))
    assert g.signatures == f.signatures, "saved signatures are compiled on load"
    np.testing.assert_array_equal(g(x), f(x))
    assert g.graph == f.graph
    # Diagnostics of the loaded function still name the original file and line.
    pyjit.save(pick, str(tmp_path / "pick.pyjit"))
    with pytest.raises(IndexError) as e:
        pyjit.load(str(tmp_path / "pick.pyjit"))(x, 5)
    assert f"{__file__}:{line_of(pick, 'return x[i]')}:" in str(e.value)
    pyjit.save(cond, str(tmp_path / "plain.pyjit"))  # a plain function is scripted first
    np.testing.assert_array_equal(pyjit.load(str(tmp_path / "plain.pyjit"))(x, 0.5), [2.0, 4.0])


def test_fastmath_changes_float32_tanh_only(tmp_path):
    x = np.linspace(-10.0, 10.0, 20001, dtype=np.float32)
    exact = pyjit.script(squash)
    fast = pyjit.script(squash, fastmath=True)
    assert "tensor.tanh_fast(" in fast.graph and "tanh_fast" not in exact.graph
    got = fast(x)
    # The interpreter and a trace compute the same bits; the decorator form takes the flag.
    np.testing.assert_array_equal(pyjit.script(squash, fastmath=True, interpreter=True)(x), got)
    np.testing.assert_array_equal(pyjit.trace(squash, (x,), fastmath=True)(x), got)
    np.testing.assert_array_equal(pyjit.script(fastmath=True)(squash)(x), got)
    # A few ulp off the exact kernel at most (6.5 ulp of tanh, halved, then added to x).
    want = exact(x)
    assert not np.array_equal(got, want)
    np.testing.assert_allclose(got, want, rtol=0, atol=4 * np.spacing(np.float32(10.0)))
    # float64 is not affected.
    np.testing.assert_array_equal(fast(x.astype(np.float64)), exact(x.astype(np.float64)))
    # An archive keeps the mode.
    path = tmp_path / "fast.pyjit"
    pyjit.save(fast, str(path))
    np.testing.assert_array_equal(pyjit.load(str(path))(x), got)


def test_bad_archives_raise_archive_error(tmp_path):
    f = pyjit.script(cond)
    f(np.zeros(2), 1.0)
    good = f.save_bytes()
    cases = {
        "truncated": good[: len(good) // 2],
        "flipped": good[:40] + bytes([good[40] ^ 1]) + good[41:],
        "other version": good.replace(b"format 1", b"format 7", 1),
        "not an archive": b"\x00\x01garbage",
        "empty": b"",
    }
    for what, data in cases.items():
        p = tmp_path / "bad.pyjit"
        p.write_bytes(data)
        with pytest.raises(pyjit.ArchiveError) as e:
            pyjit.load(str(p))
        if what == "other version":
            assert "format version 7 is not supported" in str(e.value)
    with pytest.raises(ValueError):
        pyjit.trace(cond, (np.zeros(2), 1.0)).save_bytes()


# ----------------------------------------------------------------------------------------- cache


def test_disk_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PYJIT_CACHE_DIR", str(tmp_path))
    x = np.array([1.0, 2.0], dtype=np.float32)
    a = pyjit.script(uses_helper, cache=True)
    np.testing.assert_array_equal(a(x), [3.0, 5.0])
    assert a.cache_hits == 0
    entries = list(tmp_path.iterdir())
    assert len(entries) == 1, entries
    b = pyjit.script(uses_helper, cache=True)
    np.testing.assert_array_equal(b(x), [3.0, 5.0])
    assert b.cache_hits == 1
    # A cached specialization still reports errors at the real line.
    p = pyjit.script(pick, cache=True)
    p(np.zeros(3), 0)
    q = pyjit.script(pick, cache=True)
    with pytest.raises(IndexError) as e:
        q(np.zeros(3), 7)
    assert q.cache_hits == 1
    assert f"{__file__}:{line_of(pick, 'return x[i]')}:" in str(e.value)
    # A corrupt entry is recompiled, never run.
    for entry in tmp_path.iterdir():
        entry.write_bytes(entry.read_bytes()[:-30] + b"garbage")
    c = pyjit.script(uses_helper, cache=True)
    np.testing.assert_array_equal(c(x), [3.0, 5.0])
    assert c.cache_hits == 0
    # Without cache=True nothing is read or written.
    n = len(list(tmp_path.iterdir()))
    assert pyjit.script(elementwise)(x).tolist() == [3.0, 5.0]
    assert len(list(tmp_path.iterdir())) == n
