//! The runtime of pyjit: dtype-erased tensors on ndarray with PyTorch's exact semantics
//! (broadcasting, type promotion, views and aliasing, errors as values), the table of op schemas
//! that every layer reads, the kernels, `.npy`/`.npz` I/O, PyTorch-style printing, and the
//! `extern "C"` ABI that native code calls.
//!
//! This layer depends on no other pyjit crate. It must never panic on any input: every failure is a
//! typed [`error::RuntimeError`] value.

pub mod abi;
pub mod dispatch;
pub mod dtype;
pub mod element;
pub mod error;
pub mod index;
pub mod npy;
pub mod ops;
pub mod print;
pub mod promotion;
pub mod schema;
pub mod tensor;
pub mod value;

pub use dispatch::{bind, call, call_by_name};
pub use dtype::{DType, promote};
pub use element::Element;
pub use error::{BindError, ErrorKind, RuntimeError};
pub use schema::{ArgInfo, OpId, OpSchema, TensorInfo, TypeInfo};
pub use tensor::{RawView, Tensor};
pub use value::{Scalar, TensorIndex, Value};
