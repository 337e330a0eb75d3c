//! The facade users link: compile a Python source file (parse → script → verify) into a
//! [`Program`] and call its functions with dynamically typed [`Value`]s.
//!
//! A call picks a backend behind one API. Today the only backend is the reference interpreter;
//! the native backend (issue 5) slots in behind [`Program::call`] with a per-[`Signature`] code
//! cache (the signature — dtype and rank of each tensor argument, the kinds of the others — is
//! what specialization and compiled code are keyed by).
//!
//! This crate owns the user-facing contracts shared by `pyjit run` and the test harness: the ARG
//! syntax ([`args`]), fitting arguments to parameter types, and the `-o X.npy|X.npz` output
//! format ([`output`]). It never panics on user input; every failure is a [`Diagnostic`] (compile
//! time) or a [`RunError`] (run time) carrying a source span.

pub mod args;
pub mod output;
mod program;
pub mod run;

pub use program::{ArgKey, Backend, CallError, Options, Program, RunError, Signature, static_type};
pub use pyjit_interp::{InterpError, List, Value};
/// The IR layer (printing, types), for tools built on the facade.
pub use pyjit_ir as ir;
pub use pyjit_ir::Type;
pub use pyjit_syntax::{Diagnostic, SourceFile, Span};
