//! Python values and their semantics, defined once for every layer: the dynamically typed
//! [`Value`] (scalars, strings, dtypes, tensors, tuples, shared lists, subscript components),
//! the exception classes ([`ExcKind`]) with the location-free exception ([`PyErr`]) and the
//! located run-time error ([`InterpError`]), Python's `repr`/`str`/`format` ([`format`]), the
//! scalar operators, `round` and the `math` module with CPython 3.11's results and messages
//! ([`scalar`]), the meaning of every IR op on Python values ([`ops`]), and the conversions
//! between these values and the runtime's dispatch values.
//!
//! The reference interpreter, the constant folder, the tracer's eager evaluator and native
//! code's host functions all call this crate, so they cannot disagree about a value.
//!
//! **Invariant:** nothing here depends on a backend: the crate sits below pyjit-interp,
//! pyjit-opt, pyjit-trace and pyjit-codegen and above pyjit-ir and pyjit-runtime.

mod error;
pub mod format;
pub mod ops;
pub mod scalar;
mod value;

pub use error::{CallSite, ExcKind, InterpError, PyErr};
pub use value::{Dict, DictKey, List, Value, from_runtime, generic_to_runtime, to_runtime};
