//! The reference interpreter of the IR: executes a module's functions on the runtime, control
//! flow included (`if`/`loop` regions, calls and recursion), with Python's semantics for scalars
//! and the runtime's (PyTorch's) for tensors.
//!
//! It is the oracle every pass and backend is differentially tested against, so it favours
//! clarity over speed: one `match` arm per op kind, no caching, no rewriting of the IR. It must
//! never panic or overflow the stack on any verified IR or any input: every failure — a tensor
//! op's error, a failed `assert`, `raise`, an index out of range, unbounded recursion — is an
//! [`InterpError`] value carrying the Python exception class, the message and the span of the op.

mod exec;

pub use exec::{Config, Interpreter};
// The values, errors and scalar semantics live in pyjit-value (one definition for every layer);
// re-exported so users of the interpreter need not name that crate.
pub use pyjit_value::{
    CallSite, ExcKind, InterpError, List, PyErr, Value, format, from_runtime, generic_to_runtime,
    scalar, to_runtime,
};

use pyjit_ir::{FuncId, Module};

/// Runs `func` of `module` on `args` with the default configuration, writing `print` output
/// to the process's stdout.
pub fn run(module: &Module, func: FuncId, args: Vec<Value>) -> Result<Value, InterpError> {
    let mut out = std::io::stdout();
    Interpreter::new(module, Config::default(), &mut out).call(func, args)
}
