//! The IR of pyjit: typed SSA values, ops in arenas with typed indices, and structured control
//! flow as ops that own regions (`if` with results, one `loop` form for `for`/`while`, `yield`,
//! `return`), plus calls, tuples, lists, optionals, guards and `raise`. Tensor ops name entries of
//! the runtime's op-schema table. This crate holds the types, the ops, the builder producers use,
//! the verifier, and the printer and parser of the text format described in docs/ir.md.
//!
//! This layer must never know about Cranelift, the AST or Python source text: it sees spans
//! only as byte ranges (and a [`pyjit_syntax::SourceFile`] only to print `file:line:col`). It
//! never panics on its inputs: the parser and the verifier report errors as values.

mod builder;
mod entities;
mod function;
mod ops;
mod parse;
mod print;
pub mod schema;
mod types;
mod uses;
mod verify;

pub use builder::{FunctionBuilder, InsertPoint};
pub use entities::{FuncId, Op, Region, Value};
pub use function::{Function, InlineSite, Module, OpData, RegionData, ValueData, ValueDef};
pub use ops::{
    BoolBinOp, CastOp, CmpOp, Const, FloatBinOp, FloatUnOp, IndexKind, IntBinOp, IntUnOp, MathFn,
    OpKind, builtin_op_names,
};
pub use parse::{ParseError, parse_module, parse_module_with_source};
pub use print::{
    const_text, print_function, print_module, print_module_without_spans, printed_value_names,
};
pub use pyjit_runtime::ops::elem::{ElemFn, Prec};
pub use schema::OpId;
pub use types::{TensorType, Type, write_comma_separated};
pub use uses::Uses;
pub use verify::{VerifyError, verify_function, verify_module};

pub use cranelift_entity::{EntityRef, PrimaryMap, SecondaryMap};
pub use schema::DType;
