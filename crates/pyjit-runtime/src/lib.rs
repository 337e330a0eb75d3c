//! The runtime of pyjit: dtype-erased tensors on ndarray with PyTorch's exact semantics
//! (broadcasting, type promotion, views and aliasing, errors as values), the table of op schemas
//! that every layer reads, the kernels, `.npy`/`.npz` I/O, PyTorch-style printing, and the
//! `extern "C"` ABI that native code calls.
//!
//! This layer depends on no other pyjit crate. It must never panic on any input: every failure is a
//! typed [`error::RuntimeError`] value.
