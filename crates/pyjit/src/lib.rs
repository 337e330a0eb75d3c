//! The facade users link: compile a Python source file (parse → script → verify) into a
//! [`Program`] and call its functions with dynamically typed [`Value`]s.
//!
//! A call picks a backend behind one API: the reference interpreter (the default), or native
//! code, compiled on the first call per [`Signature`] — dtype and rank of each tensor argument,
//! the kinds of the others — from the function specialized for that signature, and cached.
//!
//! This crate owns the user-facing contracts shared by `pyjit run` and the test harness: the ARG
//! syntax ([`args`]), fitting arguments to parameter types, and the `-o X.npy|X.npz` output
//! format ([`output`]). It never panics on user input; every failure is a [`Diagnostic`] (compile
//! time) or a [`RunError`] (run time) carrying a source span.

pub mod args;
pub mod output;
mod program;
pub mod run;

pub use program::{
    ArgKey, Backend, CallError, Options, Program, RunError, Signature, static_type,
    static_type_with,
};
/// The native backend (Cranelift listings for `pyjit compile --emit clif|asm`).
pub use pyjit_codegen as codegen;
pub use pyjit_interp::{InterpError, List, Value};
/// The IR layer (printing, types), for tools built on the facade.
pub use pyjit_ir as ir;
pub use pyjit_ir::Type;
/// The runtime (tensors, `.npy`/`.npz` I/O), for tools built on the facade.
pub use pyjit_runtime as runtime;
pub use pyjit_syntax::{Diagnostic, SourceFile, Span};
