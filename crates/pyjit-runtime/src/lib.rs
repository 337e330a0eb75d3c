//! The runtime of pyjit: dtype-erased tensors on ndarray with PyTorch's exact semantics
//! (broadcasting, type promotion, views and aliasing, errors as values), the table of op schemas
//! that every layer reads, the kernels, `.npy`/`.npz` I/O, PyTorch-style printing, and the
//! `extern "C"` ABI that native code calls.
//!
//! This layer depends on no other pyjit crate. It must never panic on any input: every failure is a
//! typed [`error::RuntimeError`] value.
//!
//! Map of the crate:
//! - [`tensor`]: [`Tensor`], a strided view of a shared, lock-guarded storage (views alias like
//!   PyTorch's; in-place writes are visible through every view), and [`RawView`] for native code.
//! - [`dtype`] / [`promotion`]: the five dtypes and PyTorch's `result_type` (Python scalars are
//!   weak operands).
//! - [`value`]: [`Scalar`] (a Python bool/int/float), [`Value`] (dynamically typed op arguments
//!   and results), [`TensorIndex`] (subscript components).
//! - [`schema`]: the one op table (signatures, overload resolution, Python spellings, operator
//!   mapping, static result inference) that frontend, specializer, interpreter and codegen share.
//! - [`dispatch`]: `call(OpId, &[Value])`, one kernel per schema.
//! - [`ops`] and [`index`]: the kernels as plain Rust functions.
//! - [`print`]: PyTorch's tensor `repr` and Python's float `repr`.
//! - [`npy`]: `.npy`/`.npz` I/O. [`abi`]: the `extern "C"` surface (docs/abi.md).

pub mod abi;
pub mod bufpool;
pub mod dispatch;
pub mod dtype;
pub mod element;
pub mod error;
pub mod facts;
pub mod index;
pub mod npy;
pub mod numpy;
pub mod ops;
pub mod par;
pub mod print;
pub mod print_numpy;
pub mod promotion;
pub mod schema;
pub mod tensor;
pub mod value;

pub use dispatch::{bind, call, call_by_name};
pub use dtype::{DType, promote};
pub use element::Element;
pub use error::{BindError, ErrorKind, RuntimeError};
pub use schema::{ArgInfo, OpId, OpSchema, TensorInfo, TypeInfo};
pub use tensor::{MemOverlap, RawView, Tensor};
pub use value::{Scalar, TensorIndex, Value};
