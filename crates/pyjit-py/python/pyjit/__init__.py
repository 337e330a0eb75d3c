"""pyjit: a JIT compiler for the TorchScript dialect of Python, on NumPy arrays and torch tensors.

    import numpy as np, pyjit

    @pyjit.script
    def scale(x, alpha: float):
        return x * alpha

    scale(np.arange(3.0), 2.0)          # array([0., 2., 4.]), native code for (float64 rank 1, float)

``pyjit.script`` compiles a function from its source without running it (as ``torch.jit.script``),
together with the module-level functions, constants and imports it uses, so diagnostics point at
the real file and line. ``pyjit.trace`` runs it on example inputs and records the tensor operations
(as ``torch.jit.trace``, but with guards: an input that takes another path re-traces instead of
returning a wrong answer; ``guards=False`` gives torch.jit.trace's behaviour).

Calls take NumPy arrays (float32/float64/int32/int64/bool), torch CPU tensors, Python scalars,
strings, dtypes, lists and tuples; tensors come back as NumPy arrays that view the runtime's
buffer (torch tensors when an argument was one). Errors raise the exception class PyTorch raises
(RuntimeError, IndexError, ZeroDivisionError, ...) with pyjit's rendered diagnostic as the
message; a function that does not compile raises ``pyjit.CompileError``.
"""

import ast
import inspect
import textwrap

from . import _pyjit
from ._pyjit import ArchiveError, CompileError, Function, RuntimeBuffer, TracingCheckError

__version__ = _pyjit.__version__
__all__ = [
    "ArchiveError",
    "CompileError",
    "Function",
    "RuntimeBuffer",
    "TracingCheckError",
    "load",
    "save",
    "script",
    "trace",
]


def script(fn=None, *, interpreter=False, cache=False, fastmath=False):
    """Compile ``fn`` from its source; usable as ``@pyjit.script`` or ``pyjit.script(fn)``.

    ``interpreter=True`` runs the reference interpreter instead of native code (for debugging).
    ``cache=True`` keeps each signature's optimized IR in an on-disk cache
    (``$PYJIT_CACHE_DIR``, else ``~/.cache/pyjit``) that later processes reuse; see
    ``docs/python.md`` for what is and is not cached.
    ``fastmath=True`` computes float32 ``tanh`` with a cheaper kernel, within 6.5 ulp instead
    of 0.88, in less than half the time (XLA's is within 4.6); nothing else changes. See the
    guide's "Math functions".
    """
    if fn is None:
        return lambda f: script(f, interpreter=interpreter, cache=cache, fastmath=fastmath)
    source, filename, name = _source_of(fn)
    try:
        compiled = _pyjit.script(source, filename, 1, name, interpreter, cache, fastmath)
    except CompileError as e:
        retry = _numpy_style_source(fn, source, e)
        if retry is not None:
            try:
                return _pyjit.script(retry, filename, 1, name, interpreter, cache, fastmath)
            except CompileError:
                pass
        raise
    retry = _numpy_module_source(fn, source) if _has_unannotated_parameter(fn) else None
    if retry is not None:
        # Calls passing Python scalars where the TorchScript version takes Tensors run this
        # version (as Numba and `pyjit run` run them); every other call stays TorchScript.
        try:
            compiled._set_numpy_style(
                _pyjit.script(retry, filename, 1, name, interpreter, cache, fastmath)
            )
        except CompileError:
            pass
    return compiled


def trace(fn, example_inputs, check_inputs=None, guards=True, *, interpreter=False,
          fastmath=False):
    """Trace ``fn`` on ``example_inputs`` (a tuple of arguments, or one argument).

    ``check_inputs`` is a list of further argument tuples: each is traced too and a different
    graph raises ``pyjit.TracingCheckError``. With ``guards=True`` (the default) every Python
    value the trace derived from a tensor is checked on each call and a failed check re-traces;
    ``guards=False`` replays the first trace whatever the inputs, as ``torch.jit.trace`` does.
    ``fastmath`` as for ``script``.
    """
    if not isinstance(example_inputs, tuple):
        example_inputs = (example_inputs,)
    checks = None
    if check_inputs is not None:
        checks = [c if isinstance(c, tuple) else (c,) for c in check_inputs]
    source, filename, name = _source_of(fn)
    return _pyjit.trace(
        source, filename, 1, name, example_inputs, checks, guards, interpreter, fastmath
    )


def save(fn, path):
    """Save scripted function ``fn`` to ``path`` (a ``.pyjit`` archive: its source, its IR and
    the signatures compiled so far). Loadable by ``pyjit.load``, ``pyjit run f.pyjit`` and
    ``pyjit::api::Function::load`` in Rust, without this Python module."""
    if not isinstance(fn, Function):
        fn = script(fn)
    data = fn.save_bytes()
    with open(path, "wb") as f:
        f.write(data)


def load(path, *, interpreter=False):
    """Load a function saved by ``pyjit.save``. Loading compiles the archive's source again
    (nothing in the file is executed); a corrupt, truncated, altered or other-version archive
    raises ``pyjit.ArchiveError``."""
    with open(path, "rb") as f:
        data = f.read()
    return _pyjit.load(data, interpreter)


# ---------------------------------------------------------------------------------------------
# Finding the source: the function, plus the module-level functions, classes, constants and
# imports it uses (transitively), each at its real line so that diagnostics show file:line.


def _source_of(fn):
    """(source text, file name, function name) for compiling ``fn``."""
    if isinstance(fn, Function):
        raise TypeError(f"{fn.__name__}() is already compiled")
    fn = inspect.unwrap(fn)
    if not inspect.isfunction(fn):
        raise TypeError(f"pyjit compiles Python functions, not {type(fn).__name__} objects")
    try:
        filename = inspect.getsourcefile(fn) or inspect.getfile(fn)
        lines, start = inspect.getsourcelines(fn)
    except (OSError, TypeError) as e:
        raise CompileError(
            f"cannot find the source of {fn.__qualname__}() ({e}); define it in a file"
        ) from None
    module_lines = None
    module = inspect.getmodule(fn)
    if module is not None:
        try:
            module_lines = inspect.getsource(module).splitlines()
        except (OSError, TypeError):
            module_lines = None
    out = {}  # line number (1-based) -> text
    snippet = textwrap.dedent("".join(lines))
    snippet_lines = snippet.splitlines()
    tree = ast.parse(snippet)
    target = tree.body[0]
    for i, text in enumerate(snippet_lines):
        out[start + i] = text
    _blank_decorators(target, out, start - 1)
    needed = _names_used(target)
    defined = {fn.__name__}
    if module_lines is not None:
        _add_module_items(module_lines, needed, defined, out)
    extra = _closure_constants(fn, needed - defined)
    last = max(out) if out else 0
    text = [out.get(i, "") for i in range(1, last + 1)] + extra
    return "\n".join(text) + "\n", filename, fn.__name__


def _numpy_style_source(fn, source, error):
    """``source`` compiled as NumPy-style code, or None.

    The compiled source keeps ``import numpy as np`` only when the function uses ``np``, and
    without it the code is TorchScript, where a parameter without annotation is a Tensor. A
    Numba-style kernel of plain loops (``def scalar_loop(n): for i in range(1, n): ...``) uses
    neither NumPy nor torch, so it fails there. When every diagnostic is of that kind, the
    function is compiled as the module file would be (``_numpy_module_source``)."""
    diagnostics = getattr(error, "diagnostics", None) or [str(error)]
    if not all("has no annotation, so it is a Tensor" in d for d in diagnostics):
        return None
    return _numpy_module_source(fn, source)


def _has_unannotated_parameter(fn):
    return any(
        p.annotation is inspect.Parameter.empty
        for p in inspect.signature(fn).parameters.values()
    )


def _numpy_module_source(fn, source):
    """``source`` as the module file would compile it (``pyjit run``): NumPy-style, its
    parameters typed by the call's arguments (docs/python.md), when the function's module
    imports NumPy and not torch and the source (which then uses neither ``np`` nor torch)
    imports neither; else None."""
    roots = {
        v.__name__.split(".")[0] for v in fn.__globals__.values() if inspect.ismodule(v)
    }
    if "numpy" not in roots or "torch" in roots:
        return None
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            modules = [node.module or ""]
        else:
            continue
        if any(m.split(".")[0] in ("numpy", "torch") for m in modules):
            return None
    if "np" in _names_used(tree):
        return None  # `np` is something else here
    return source + "import numpy as np\n"


def _blank_decorators(node, out, line_shift):
    """Removes the decorators of ``node`` (pyjit's own, torch.jit.script's): compiled code never
    sees them. ``line_shift`` maps the node's line numbers to the file's."""
    for d in getattr(node, "decorator_list", []):
        for ln in range(d.lineno, d.end_lineno + 1):
            out[ln + line_shift] = ""


def _names_used(node):
    """The global names ``node`` reads, its decorators' aside (they are removed). Inside a
    function, a parameter or a name it assigns is local (Python's scoping), so a module-level
    ``x = ...`` is not pulled in by a parameter ``x``."""
    skip = {id(n) for d in getattr(node, "decorator_list", []) for n in ast.walk(d)}
    local = set()
    declared_global = set()
    for f in ast.walk(node):
        if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            a = f.args
            params = a.posonlyargs + a.args + a.kwonlyargs + [p for p in (a.vararg, a.kwarg) if p]
            local |= {p.arg for p in params}
            for g in ast.walk(f):
                if isinstance(g, ast.Name) and isinstance(g.ctx, (ast.Store, ast.Del)):
                    local.add(g.id)
                elif isinstance(g, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and g is not f:
                    local.add(g.name)
                elif isinstance(g, ast.Global):
                    declared_global |= set(g.names)
    local -= declared_global
    return {
        n.id
        for n in ast.walk(node)
        if isinstance(n, ast.Name) and id(n) not in skip and n.id not in local
    }


def _bound_names(stmt):
    """Names a top-level statement binds: defs, classes, assignments, imports."""
    if isinstance(stmt, (ast.FunctionDef, ast.ClassDef)):
        return {stmt.name}
    if isinstance(stmt, ast.Assign):
        return {n.id for t in stmt.targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
        return {stmt.target.id}
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in stmt.names}
    return set()


def _add_module_items(module_lines, needed, defined, out):
    """Adds the module's top-level statements that bind a name in ``needed`` (transitively)."""
    try:
        tree = ast.parse("\n".join(module_lines) + "\n")
    except SyntaxError:
        return
    binders = {}
    for stmt in tree.body:
        for name in _bound_names(stmt):
            binders.setdefault(name, []).append(stmt)
    taken = set()
    seen = set(defined)
    work = list(needed)
    while work:
        name = work.pop()
        if name in seen:
            continue
        seen.add(name)
        for stmt in binders.get(name, []):
            if id(stmt) in taken:
                continue
            first = min([stmt.lineno] + [d.lineno for d in getattr(stmt, "decorator_list", [])])
            span = range(first, stmt.end_lineno + 1)
            if any(ln in out for ln in span):
                continue  # overlaps the function itself (its enclosing def)
            taken.add(id(stmt))
            defined.add(name)
            if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                _add_import(stmt, needed | seen, out)
                continue
            for ln in span:
                out[ln] = module_lines[ln - 1]
            _blank_decorators(stmt, out, 0)
            uses = _names_used(stmt) - seen
            work.extend(uses)
            needed |= uses


def _add_import(stmt, used, out):
    """An import statement reduced to the names the compiled code uses, on its first line."""
    keep = [a for a in stmt.names if (a.asname or a.name).split(".")[0] in used]
    if not keep:
        return
    names = ", ".join(a.name + (f" as {a.asname}" if a.asname else "") for a in keep)
    if isinstance(stmt, ast.Import):
        line = f"import {names}"
    else:
        line = f"from {'.' * stmt.level}{stmt.module or ''} import {names}"
    for ln in range(stmt.lineno, stmt.end_lineno + 1):
        out[ln] = ""
    out[stmt.lineno] = line


def _closure_constants(fn, names):
    """Lines for names the source does not bind at top level (appended after its last line):
    modules and typing names the function's globals hold (an import inside ``try:``),
    ``torch``/``Tensor`` for code written without torch imported, and constants from the
    closure or the globals."""
    values = dict(fn.__globals__)
    if fn.__closure__:
        for name, cell in zip(fn.__code__.co_freevars, fn.__closure__):
            try:
                values[name] = cell.cell_contents
            except ValueError:
                pass
    lines = []
    for name in sorted(names):
        v = values.get(name, _MISSING)
        if inspect.ismodule(v):
            real = v.__name__
            lines.append(f"import {real}" if real == name else f"import {real} as {name}")
        elif name == "torch":
            lines.append("import torch")
        elif name == "Tensor":
            lines.append("from torch import Tensor")
        elif name in _TYPING and (v is _MISSING or getattr(v, "__module__", "") == "typing"):
            lines.append(f"from typing import {name}")
        elif v is None or (type(v) in (int, bool)) or (type(v) is float and v - v == 0):
            lines.append(f"{name} = {v!r}")
    return lines


_TYPING = {"List", "Tuple", "Optional", "Dict", "Union", "Any"}
_MISSING = object()
