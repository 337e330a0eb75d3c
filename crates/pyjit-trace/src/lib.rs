//! Tracing: an eager, dynamically typed evaluator of the AST over runtime tensors that records
//! every tensor op it executes into IR, and turns every Python value derived from a tensor (a
//! `bool()` in an `if`, an `.item()`, a size read as an int) into a *guard* plus a TracerWarning.
//!
//! The evaluator runs more Python than scripting accepts — variables that change type,
//! heterogeneous lists and tuples, comprehensions, `lambda` and nested `def`s, dicts, strings and
//! f-strings, `isinstance` at run time, `try`/`except`, classes with methods — because it only
//! ever sees values, never types. Loops unroll into the trace. Calls to `@torch.jit.script` functions are scripted and recorded as
//! calls (TorchScript's mixing rule), so their control flow survives.
//!
//! A [`TracedFunction`] checks its guards on every call (by running the trace on the reference
//! interpreter) and re-traces when one fails, keeping at most [`CACHE_LIMIT`] traces (then it
//! evaluates eagerly): it never returns a result that the eager program would not. With
//! [`TraceOptions::guards`] off it reproduces torch.jit.trace (one trace, reused silently), and
//! every warning says so. [`check_trace`] re-traces on other inputs and reports which source
//! lines made the graphs and the results differ.
//!
//! Scalar arguments (int, float, bool) stay graph inputs while they only flow into tensor ops
//! (`x.sum() > threshold` records `gt(%sum, %threshold)`); the first Python use of their value
//! (`range(n)`, `n * 2`, `if flag:`) makes them guarded constants. With guards off they are
//! constants from the start, as torch.jit.trace bakes them in.
//!
//! Python ints are 64-bit here and wrap on overflow (the language's `int`, like PyTorch's int64);
//! string arguments of a traced function cannot be guarded in the IR (guards compare ints, floats
//! and bools), so a [`TracedFunction`] makes their values part of its cache key instead.
//!
//! Entry points: [`eval_function`] / [`eval_function_to`] / [`eval_function_limited`] (eager,
//! `--mode eager`), [`trace_function`] / [`trace_function_to`] (one [`Trace`]: IR module, guards,
//! TracerWarnings; `pyjit trace`), [`TracedFunction`] (guard-checked calls with re-tracing,
//! `--mode trace`; [`TraceOptions::no_guards`] for `--no-guards`), [`check_trace`]
//! (`--check-inputs`). Arguments and results are the interpreter's values
//! ([`pyjit_interp::Value`]).
//!
//! [`rust_api`] traces Rust closures over a tensor handle with operator overloading into the
//! same IR.
//!
//! ```
//! use pyjit_interp::Value;
//! use pyjit_runtime::Tensor;
//! use pyjit_syntax::SourceFile;
//! use pyjit_trace::{TraceOptions, TracedFunction};
//!
//! let src = "def f(x, t: float):\n    if x.sum() > t:\n        return x * 2\n    return x + 1\n";
//! let file = SourceFile::new("f.py", src);
//! let mut f = TracedFunction::from_source(file, "f", TraceOptions::default()).unwrap();
//! let x = |v: &[f32]| Value::Tensor(Tensor::from_slice(v));
//! let mut out = Vec::new();
//! f.call_to(vec![x(&[1.0, 2.0]), Value::Float(0.0)], &mut out).unwrap(); // traces the `*` branch
//! let r = f.call_to(vec![x(&[-1.0, -2.0]), Value::Float(0.0)], &mut out).unwrap();
//! // The guard on `x.sum() > t` failed, so it re-traced: x + 1, not torch.jit.trace's x * 2.
//! let Value::Tensor(r) = r else { unreachable!() };
//! assert_eq!(r.to_vec::<f32>(), vec![0.0, -1.0]);
//! assert_eq!(f.stats.traces, 2);
//! ```
//!
//! This layer must never panic on user input (every failure is a [`TraceError`] with a span),
//! never hand out IR the verifier rejects, and never return a traced result with guards on that
//! differs from what eager evaluation returns.

mod builtins;
mod error;
mod eval;
mod record;
pub mod rust_api;
mod script;
mod trace;
mod value;

pub use error::TraceError;
pub use record::{Guard, GuardReason, warning_text};
pub use trace::{
    CACHE_LIMIT, CheckMismatch, CheckReport, Trace, TraceOptions, TraceStats, TracedFunction,
    check_trace, compare_values, copy_back, deep_clone, eval_function, eval_function_limited,
    eval_function_to, signature_key, trace_function, trace_function_to,
};
pub use value::{PyVal, TVal};
