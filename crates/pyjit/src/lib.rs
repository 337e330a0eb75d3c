#![warn(missing_docs)]
//! The facade users link: compile a Python source file (parse → script → verify) into a
//! [`Program`] and call its functions with dynamically typed [`Value`]s.
//!
//! A call picks a backend behind one API: the reference interpreter (the default), or native
//! code, compiled on the first call per [`Signature`] — dtype and rank of each tensor argument,
//! the kinds of the others — from the function specialized for that signature, and cached.
//! Between specialization and either backend runs the optimization pipeline of `pyjit-opt`
//! ([`Options::opt`], `-O2` by default); at `-O0` the interpreter runs the generic IR as
//! scripted, the reference the other configurations are tested against.
//!
//! This crate owns the user-facing contracts shared by `pyjit run` and the test harness: the ARG
//! syntax ([`args`]), fitting arguments to parameter types, and the `-o X.npy|X.npz` output
//! format ([`output`]). It never panics on user input; every failure is a [`Diagnostic`] (compile
//! time) or a [`RunError`] (run time) carrying a source span.
//!
//! ```
//! use pyjit::{Backend, Program, SourceFile, Value, runtime::Tensor};
//!
//! let src = "def conditional_op(x, threshold: float):\n    if x.sum() > threshold:\n        return x * 2\n    return x + 1\n";
//! let mut program = Program::compile(SourceFile::new("cond.py", src)).expect("compiles");
//! let x = Value::Tensor(Tensor::from_vec(vec![1.0f32, 2.0], &[2]).unwrap());
//! let y = program.call("conditional_op", vec![x.clone(), Value::Float(0.5)]).unwrap();
//! assert_eq!(pyjit::output::display(&y), "tensor([2., 4.])");
//! // The same call as machine code, compiled for (float32 rank-1 tensor, float) and cached.
//! program.set_backend(Backend::Native);
//! let y = program.call("conditional_op", vec![x, Value::Float(100.0)]).unwrap();
//! assert_eq!(pyjit::output::display(&y), "tensor([2., 3.])");
//! ```

pub mod api;
pub mod archive;
pub mod args;
pub mod cache;
pub mod output;
mod program;
pub mod run;
pub mod traced;

/// The ndarray crate tensors are built on (`Tensor::from_array`, `Tensor::to_array`), so that
/// users need no ndarray dependency of their own (nor one of a different version).
pub use ndarray;
pub use program::{
    ArgKey, Backend, CallError, Compilation, FrontendTimes, Options, PreparedCall, Program,
    RunError, SPECIALIZED_SUFFIX, Signature, static_type, static_type_with, user_facing_name,
};
/// The native backend (Cranelift listings for `pyjit compile --emit clif|asm`).
pub use pyjit_codegen as codegen;
pub use pyjit_interp::{InterpError, List, Value};
/// The IR layer (printing, types), for tools built on the facade.
pub use pyjit_ir as ir;
pub use pyjit_ir::Type;
/// The middle end: optimization levels, the pass manager and its reports (`-O`, `--passes`, …).
pub use pyjit_opt as opt;
/// The runtime (tensors, `.npy`/`.npz` I/O), for tools built on the facade.
pub use pyjit_runtime as runtime;

/// The Rust examples of the user's guide (docs/guide.md) run as doctests of this crate.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/guide.md")]
pub struct UsersGuide;
pub use pyjit_syntax::{Diagnostic, SourceFile, Span};

#[cfg(test)]
mod test_values;
