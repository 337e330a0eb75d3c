//! The dtype-erased, strided, storage-sharing `Tensor`.
//!
//! # Storage and aliasing
//! A tensor is a *view*: shape, strides (in elements, never negative; 0 for expanded dims) and an
//! offset into a shared [`Storage`]. Cloning a `Tensor` clones the `Arc`, so every view of one
//! storage sees every write made through any other, exactly like PyTorch (`y = x[0]; y += 1`
//! changes `x`).
//!
//! The buffer sits behind a `parking_lot::RwLock` rather than a bare `UnsafeCell`: it keeps
//! `Tensor: Send + Sync` sound, and a kernel reading two views of the same storage (`x + x`) takes
//! two *recursive* read locks, which parking_lot guarantees never to deadlock. Every kernel reads
//! its inputs into a fresh result first and only then takes the write lock of the destination, so
//! in-place ops whose source overlaps the destination (`x[1:] = x[:-1]`, `x += x.t()`) see the
//! old values, never a half-written buffer, and never deadlock. A buffer is allocated once and
//! never resized, so the raw data pointer of a storage is stable for its whole life (native code
//! relies on that: see [`RawView`] and docs/abi.md).

use std::ptr::NonNull;
use std::sync::Arc;

use ndarray::{ArrayD, ArrayViewD, ArrayViewMutD, IxDyn, ShapeBuilder};
use parking_lot::RwLock;

use crate::dtype::DType;
use crate::element::Element;
use crate::error::{Result, RuntimeError};
use crate::value::Scalar;
use crate::with_dtype;

/// The largest single allocation the runtime attempts (16 GiB). Larger requests fail with
/// [`RuntimeError::AllocationTooLarge`] instead of letting the OS abort the process.
pub const MAX_ALLOC_BYTES: u128 = 1 << 34;

/// Typed element buffer of a storage.
#[derive(Debug)]
pub enum Buffer {
    Bool(Vec<bool>),
    Int32(Vec<i32>),
    Int64(Vec<i64>),
    Float32(Vec<f32>),
    Float64(Vec<f64>),
    /// Elements owned by someone else (a NumPy array's memory), see [`Tensor::from_external`].
    External(ExternalBuffer),
}

/// Memory the runtime views but does not own: `len` elements of `dtype` at `ptr`, kept alive by
/// `owner` (dropped with the storage). Accessed under the storage's lock like an owned buffer.
pub struct ExternalBuffer {
    dtype: DType,
    ptr: NonNull<u8>,
    len: usize,
    _owner: Box<dyn std::any::Any + Send + Sync>,
}

// SAFETY: the elements are plain data reached only through the storage's lock (as an owned
// `Vec` is); `from_external`'s contract makes the memory valid while `owner` lives, and the owner
// itself is `Send + Sync`.
unsafe impl Send for ExternalBuffer {}
// SAFETY: as above.
unsafe impl Sync for ExternalBuffer {}

impl ExternalBuffer {
    /// The elements, if they are of type `T`.
    pub(crate) fn as_slice<T: Element>(&self) -> Option<&[T]> {
        // SAFETY: `from_external`'s contract: `len` initialized, aligned elements of `dtype`.
        (T::DTYPE == self.dtype)
            .then(|| unsafe { std::slice::from_raw_parts(self.ptr.as_ptr() as *const T, self.len) })
    }

    /// The elements, mutably, if they are of type `T`.
    pub(crate) fn as_mut_slice<T: Element>(&mut self) -> Option<&mut [T]> {
        // SAFETY: as in `as_slice`; `&mut self` comes from the storage's write lock.
        (T::DTYPE == self.dtype).then(|| unsafe {
            std::slice::from_raw_parts_mut(self.ptr.as_ptr() as *mut T, self.len)
        })
    }
}

impl std::fmt::Debug for ExternalBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ExternalBuffer({} x {})", self.len, self.dtype.name())
    }
}

impl Buffer {
    pub(crate) fn dtype(&self) -> DType {
        match self {
            Buffer::Bool(_) => DType::Bool,
            Buffer::Int32(_) => DType::Int32,
            Buffer::Int64(_) => DType::Int64,
            Buffer::Float32(_) => DType::Float32,
            Buffer::Float64(_) => DType::Float64,
            Buffer::External(e) => e.dtype,
        }
    }

    pub(crate) fn len(&self) -> usize {
        match self {
            Buffer::Bool(v) => v.len(),
            Buffer::Int32(v) => v.len(),
            Buffer::Int64(v) => v.len(),
            Buffer::Float32(v) => v.len(),
            Buffer::Float64(v) => v.len(),
            Buffer::External(e) => e.len,
        }
    }

    fn as_mut_ptr(&mut self) -> *mut u8 {
        match self {
            Buffer::Bool(v) => v.as_mut_ptr() as *mut u8,
            Buffer::Int32(v) => v.as_mut_ptr() as *mut u8,
            Buffer::Int64(v) => v.as_mut_ptr() as *mut u8,
            Buffer::Float32(v) => v.as_mut_ptr() as *mut u8,
            Buffer::Float64(v) => v.as_mut_ptr() as *mut u8,
            Buffer::External(e) => e.ptr.as_ptr(),
        }
    }
}

/// The shared, fixed-size element buffer behind one or more tensor views.
#[derive(Debug)]
pub struct Storage {
    buf: RwLock<Buffer>,
    /// Base address of the buffer, captured at creation (the buffer never reallocates).
    base: usize,
    len: usize,
}

impl Drop for Storage {
    /// The last view is gone: big buffers go back to the size-class pool (crate::bufpool).
    fn drop(&mut self) {
        let buf = std::mem::replace(self.buf.get_mut(), Buffer::Bool(Vec::new()));
        let dtype = buf.dtype();
        crate::bufpool::give(buf, dtype);
    }
}

impl Storage {
    fn new(mut buf: Buffer) -> Storage {
        let base = buf.as_mut_ptr() as usize;
        let len = buf.len();
        Storage {
            buf: RwLock::new(buf),
            base,
            len,
        }
    }
}

/// A strided view of a shared storage; see the module docs for the aliasing rules.
#[derive(Clone)]
pub struct Tensor {
    storage: Arc<Storage>,
    dtype: DType,
    /// The shape, then the strides (`2 * rank` numbers): one allocation per view, shared by
    /// its clones (a clone of a tensor only counts references).
    dims: Arc<[usize]>,
    offset: usize,
}

/// How the memory of two tensor views relates ([`Tensor::overlap_status`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemOverlap {
    No,
    Full,
    Partial,
    TooHard,
}

/// PyTorch's message when an in-place op's input shares memory with what it writes.
const PARTIAL_OVERLAP: &str = "unsupported operation: some elements of the input tensor and the \
     written-to tensor refer to a single memory location. Please clone() the tensor before \
     performing the operation.";

/// PyTorch's message when the written-to view reaches one element through several indices.
const INTERNAL_OVERLAP: &str = "unsupported operation: more than one element of the written-to \
     tensor refers to a single memory location. Please clone() the tensor before performing the \
     operation.";

/// A raw, C-layout description of a tensor view for native code: element `[i0, i1, …]` is at
/// `data + (i0*strides[0] + i1*strides[1] + …) * dtype.size_of()`. Valid while the tensor (or any
/// tensor sharing its storage) is alive; `shape`/`strides` point into the tensor itself.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct RawView {
    pub data: *mut u8,
    pub dtype: u32,
    pub ndim: u32,
    pub shape: *const i64,
    pub strides: *const i64,
}

/// Number of elements of `shape`, or an allocation error if the product overflows.
/// Also rejects shapes whose non-zero dims multiply past `isize::MAX / 8` even when some other
/// dim is 0: such a shape could never be materialized, and ndarray refuses to describe it.
pub(crate) fn checked_numel(shape: &[usize]) -> Result<usize> {
    let too_large = || RuntimeError::AllocationTooLarge { bytes: u128::MAX };
    let nonzero = shape
        .iter()
        .filter(|&&d| d != 0)
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .ok_or_else(too_large)?;
    if nonzero > (isize::MAX as usize) / 8 {
        return Err(too_large());
    }
    Ok(if shape.contains(&0) { 0 } else { nonzero })
}

/// Checks that a tensor of `shape` and `dtype` may be allocated; returns its element count.
pub(crate) fn check_alloc(shape: &[usize], dtype: DType) -> Result<usize> {
    let mut bytes: u128 = dtype.size_of() as u128;
    for &d in shape {
        bytes = bytes.saturating_mul(d as u128);
    }
    if bytes > MAX_ALLOC_BYTES {
        return Err(RuntimeError::AllocationTooLarge { bytes });
    }
    checked_numel(shape)
}

/// Row-major (C-contiguous) strides of `shape`.
pub(crate) fn contiguous_strides(shape: &[usize]) -> Vec<usize> {
    // Built from the last dim and reversed, not in a `vec![0; n]` (glibc's calloc, which skips
    // its per-thread cache): every new tensor computes its strides.
    let mut strides = Vec::with_capacity(shape.len());
    let mut acc = 1usize;
    for &d in shape.iter().rev() {
        strides.push(acc);
        acc = acc.saturating_mul(d.max(1));
    }
    strides.reverse();
    strides
}

/// A view's dims (see [`Tensor`]): `shape` then `strides`, in one allocation.
fn dims_of(shape: &[usize], strides: &[usize]) -> Arc<[usize]> {
    shape.iter().chain(strides).copied().collect()
}

/// The dims of a row-major tensor of `shape` (strides on the stack up to rank 8, so one
/// allocation in all).
fn contiguous_dims(shape: &[usize]) -> Arc<[usize]> {
    const SMALL: usize = 8;
    if shape.len() > SMALL {
        return dims_of(shape, &contiguous_strides(shape));
    }
    let mut strides = [0usize; SMALL];
    let mut acc = 1usize;
    for (s, &d) in strides[..shape.len()].iter_mut().zip(shape).rev() {
        *s = acc;
        acc = acc.saturating_mul(d.max(1));
    }
    dims_of(shape, &strides[..shape.len()])
}

/// Wraps a possibly negative `dim` into `[0, rank)`; rank 0 accepts `-1` and `0` like PyTorch.
pub fn wrap_dim(dim: i64, rank: usize) -> Result<usize> {
    let r = rank.max(1) as i64;
    if dim < -r || dim >= r {
        return Err(RuntimeError::DimOutOfRange {
            dim,
            low: -r,
            high: r - 1,
        });
    }
    Ok(if dim < 0 {
        (dim + r) as usize
    } else {
        dim as usize
    })
}

/// Allocates a vector of `n` copies of `v`, failing (instead of aborting) when memory is short.
pub(crate) fn alloc_filled<T: Clone>(n: usize, v: T) -> Result<Vec<T>> {
    let mut out = alloc_empty(n)?;
    out.resize(n, v);
    Ok(out)
}

/// An empty vector with room for exactly `n` elements, not yet touched, its pages advised as
/// huge ([`crate::bufpool::advise_huge_pages`]) when it is big (an allocation error instead of
/// an abort when memory is short).
pub(crate) fn alloc_empty<T>(n: usize) -> Result<Vec<T>> {
    let mut out: Vec<T> = Vec::new();
    out.try_reserve_exact(n)
        .map_err(|_| RuntimeError::AllocationTooLarge {
            bytes: (n as u128).saturating_mul(std::mem::size_of::<T>() as u128),
        })?;
    crate::bufpool::advise_huge_pages(out.as_ptr().cast(), n * std::mem::size_of::<T>());
    Ok(out)
}

impl Tensor {
    // ---------------------------------------------------------------- construction

    /// A contiguous tensor over a fresh buffer. `buf.len()` must equal the product of `shape`.
    pub(crate) fn from_buffer(buf: Buffer, shape: &[usize]) -> Tensor {
        let dtype = buf.dtype();
        Tensor {
            storage: Arc::new(Storage::new(buf)),
            dtype,
            dims: contiguous_dims(shape),
            offset: 0,
        }
    }

    /// A contiguous tensor holding `data` (row-major) with the given shape.
    pub fn from_vec<T: Element>(data: Vec<T>, shape: &[usize]) -> Result<Tensor> {
        let n = checked_numel(shape)?;
        if n != data.len() {
            return Err(RuntimeError::Shape(format!(
                "shape '{:?}' is invalid for input of size {}",
                shape,
                data.len()
            )));
        }
        Ok(Tensor::from_buffer(T::into_buffer(data), shape))
    }

    /// A 1-d tensor holding `data`.
    pub fn from_slice<T: Element>(data: &[T]) -> Tensor {
        Tensor::from_buffer(T::into_buffer(data.to_vec()), &[data.len()])
    }

    /// Takes ownership of an ndarray array (copied into row-major order if needed).
    pub fn from_array<T: Element>(a: ArrayD<T>) -> Tensor {
        let shape = a.shape().to_vec();
        let n = a.len();
        let data = if a.is_standard_layout() {
            let (v, off) = a.into_raw_vec_and_offset();
            let off = off.unwrap_or(0);
            if off == 0 && v.len() == n {
                v
            } else {
                v[off..off + n].to_vec()
            }
        } else {
            a.iter().copied().collect()
        };
        Tensor::from_buffer(T::into_buffer(data), &shape)
    }

    /// A tensor viewing memory owned elsewhere (a NumPy array's), without copying it: element
    /// `[i0, i1, …]` is element `i0*strides[0] + i1*strides[1] + …` of the `len` elements of
    /// `dtype` at `ptr`. Writes through the tensor are seen by the memory's owner and vice
    /// versa, as with any view. Fails (instead of building an unsound view) when the pointer is
    /// null or misaligned, `shape` and `strides` differ in length, or the view reaches past `len`.
    ///
    /// # Safety
    /// `ptr` must point to `len` initialized elements of `dtype` (for `bool`, bytes 0 or 1) that
    /// stay valid, readable and writable for as long as `owner` is alive; the runtime drops
    /// `owner` when the last tensor viewing the memory is gone. Others may read and write the
    /// memory meanwhile only as they could with any other shared buffer (no reallocation).
    pub unsafe fn from_external(
        dtype: DType,
        ptr: *mut u8,
        len: usize,
        shape: &[usize],
        strides: &[usize],
        owner: Box<dyn std::any::Any + Send + Sync>,
    ) -> Result<Tensor> {
        let bad = |why: &str| RuntimeError::Value(format!("cannot view external memory: {why}"));
        let ptr = NonNull::new(ptr).ok_or_else(|| bad("null pointer"))?;
        if !(ptr.as_ptr() as usize).is_multiple_of(dtype.size_of()) {
            return Err(bad("misaligned pointer"));
        }
        if shape.len() != strides.len() {
            return Err(bad("shape and strides differ in length"));
        }
        check_alloc(shape, dtype)?;
        if len
            .checked_mul(dtype.size_of())
            .is_none_or(|b| b > isize::MAX as usize)
        {
            return Err(bad("length too large"));
        }
        if !shape.contains(&0) {
            let last = shape.iter().zip(strides).try_fold(0usize, |acc, (&d, &s)| {
                acc.checked_add((d - 1).checked_mul(s)?)
            });
            if last.is_none_or(|l| l >= len) {
                return Err(bad("the view reaches past the memory"));
            }
        }
        let buf = Buffer::External(ExternalBuffer {
            dtype,
            ptr,
            len,
            _owner: owner,
        });
        Ok(Tensor {
            storage: Arc::new(Storage::new(buf)),
            dtype,
            dims: dims_of(shape, strides),
            offset: 0,
        })
    }

    /// A 0-d tensor holding a Python scalar, with the scalar's default dtype
    /// (bool, int64, float32).
    pub fn scalar(s: Scalar) -> Tensor {
        Tensor::scalar_typed(s, s.default_dtype())
    }

    /// A 0-d tensor holding `s` converted to `dtype`.
    pub fn scalar_typed(s: Scalar, dtype: DType) -> Tensor {
        with_dtype!(dtype, T => Tensor::from_buffer(T::into_buffer(vec![scalar_to::<T>(s)]), &[]))
    }

    /// A tensor of `shape` filled with `value` converted to `dtype`.
    pub fn full(shape: &[usize], value: Scalar, dtype: DType) -> Result<Tensor> {
        let n = check_alloc(shape, dtype)?;
        Ok(with_dtype!(dtype, T => Tensor::from_buffer(
            T::into_buffer(crate::bufpool::alloc_filled(n, scalar_to::<T>(value))?),
            shape
        )))
    }

    pub fn zeros(shape: &[usize], dtype: DType) -> Result<Tensor> {
        Tensor::full(shape, Scalar::Int(0), dtype)
    }

    pub fn ones(shape: &[usize], dtype: DType) -> Result<Tensor> {
        Tensor::full(shape, Scalar::Int(1), dtype)
    }

    // ---------------------------------------------------------------- metadata

    pub fn shape(&self) -> &[usize] {
        &self.dims[..self.dims.len() / 2]
    }

    /// Strides in elements.
    pub fn strides(&self) -> &[usize] {
        &self.dims[self.dims.len() / 2..]
    }

    /// Offset of element `[0, …, 0]` in the storage, in elements.
    pub fn storage_offset(&self) -> usize {
        self.offset
    }

    pub fn dtype(&self) -> DType {
        self.dtype
    }

    pub fn numel(&self) -> usize {
        self.shape().iter().product()
    }

    pub fn dim(&self) -> usize {
        self.shape().len()
    }

    /// `x.size(d)` with a possibly negative `d`.
    pub fn size(&self, dim: i64) -> Result<usize> {
        if self.shape().is_empty() {
            return Err(RuntimeError::DimOutOfRange {
                dim,
                low: 0,
                high: -1,
            });
        }
        Ok(self.shape()[wrap_dim(dim, self.dim())?])
    }

    /// Whether the view is row-major contiguous (size-1 dims may have any stride).
    pub fn is_contiguous(&self) -> bool {
        let mut expected = 1usize;
        for i in (0..self.shape().len()).rev() {
            if self.shape()[i] == 1 {
                continue;
            }
            if self.strides()[i] != expected {
                return self.numel() == 0;
            }
            expected *= self.shape()[i];
        }
        true
    }

    /// Whether two tensors are views of the same storage.
    pub fn shares_storage(&self, other: &Tensor) -> bool {
        Arc::ptr_eq(&self.storage, &other.storage)
    }

    /// Whether any element of this view is reachable through two different indices
    /// (an expanded view); such views cannot be written to.
    pub fn has_internal_overlap(&self) -> bool {
        self.shape()
            .iter()
            .zip(self.strides())
            .any(|(&n, &s)| n > 1 && s == 0)
    }

    /// The error of writing to a view with [`Tensor::has_internal_overlap`] (PyTorch's
    /// `assert_no_internal_overlap`).
    pub fn assert_no_internal_overlap(&self) -> Result<()> {
        if self.has_internal_overlap() {
            return Err(RuntimeError::Value(INTERNAL_OVERLAP.into()));
        }
        Ok(())
    }

    /// Whether the view's elements fill a block of memory exactly once in some order of its
    /// dims (PyTorch's `is_non_overlapping_and_dense`): a permutation of a contiguous tensor.
    pub fn is_non_overlapping_and_dense(&self) -> bool {
        if self.shape().len() == 1 {
            return self.shape()[0] < 2 || self.strides()[0] == 1;
        }
        // Dims of size < 2 last, the others by increasing stride.
        let mut perm: Vec<usize> = (0..self.shape().len()).collect();
        perm.sort_by_key(|&d| (self.shape()[d] < 2, self.strides()[d]));
        let mut require = 1usize;
        for d in perm {
            if self.shape()[d] < 2 {
                return true;
            }
            if self.strides()[d] != require {
                return false;
            }
            require = require.saturating_mul(self.shape()[d]);
        }
        true
    }

    /// How the memory of two views relates (PyTorch's `get_overlap_status`, which decides when
    /// in-place ops refuse to run): `Full` for the same elements in the same layout, `Partial`
    /// when two dense views of one storage share some memory otherwise, `TooHard` when either
    /// view is not [dense](Tensor::is_non_overlapping_and_dense) (PyTorch then does not check).
    pub fn overlap_status(&self, other: &Tensor) -> MemOverlap {
        let same_view = self.shares_storage(other)
            && self.offset == other.offset
            && self.shape() == other.shape()
            && self.strides() == other.strides();
        if same_view {
            return MemOverlap::Full;
        }
        if self.numel() == 0 || other.numel() == 0 {
            return MemOverlap::No;
        }
        if !self.is_non_overlapping_and_dense() || !other.is_non_overlapping_and_dense() {
            return MemOverlap::TooHard;
        }
        if self.shares_storage(other) {
            // Dense views occupy [offset, offset + numel) (in elements of the one storage).
            let (a0, a1) = (self.offset, self.offset + self.numel());
            let (b0, b1) = (other.offset, other.offset + other.numel());
            if a0 == b0 && a1 == b1 {
                return if self.strides() == other.strides() {
                    MemOverlap::Full
                } else {
                    MemOverlap::Partial
                };
            }
            if a0 < b1 && b0 < a1 {
                return MemOverlap::Partial;
            }
        }
        MemOverlap::No
    }

    /// PyTorch's `assert_no_partial_overlap(self, other)`: the error an in-place op raises when
    /// its input `other` shares part of the memory it writes (`y -= y[0]`).
    pub fn assert_no_partial_overlap(&self, other: &Tensor) -> Result<()> {
        if self.overlap_status(other) == MemOverlap::Partial {
            return Err(RuntimeError::Value(PARTIAL_OVERLAP.into()));
        }
        Ok(())
    }

    /// PyTorch's `assert_no_overlap(self, other)` (advanced-index writes): even a full overlap is
    /// refused.
    pub fn assert_no_overlap(&self, other: &Tensor) -> Result<()> {
        if matches!(
            self.overlap_status(other),
            MemOverlap::Partial | MemOverlap::Full
        ) {
            return Err(RuntimeError::Value(PARTIAL_OVERLAP.into()));
        }
        Ok(())
    }

    // ---------------------------------------------------------------- element access

    /// Strides for an ndarray view: the real ones, or zeros for an empty view (whose strides
    /// address nothing, but could overflow ndarray's offset checks when some dim is huge).
    fn view_strides(&self) -> &[usize] {
        const ZEROS: [usize; 64] = [0; 64];
        if self.numel() == 0 && self.strides().len() <= 64 {
            &ZEROS[..self.strides().len()]
        } else {
            self.strides()
        }
    }

    /// The elements as a mutable slice when this view is the only reference to its storage (no
    /// other view, no weak reference), the storage is the runtime's own memory (not external
    /// memory lent by Python), the view is contiguous and `T` is its element type: then an op
    /// whose input is dead may write its results over the input (`ops::vector_unary_owned`,
    /// `ops::binary_owned`). `None` otherwise.
    pub fn unique_contiguous_mut<T: Element>(&mut self) -> Option<&mut [T]> {
        if T::DTYPE != self.dtype || !self.is_contiguous() {
            return None;
        }
        let (offset, n) = (self.offset, self.numel());
        let storage = Arc::get_mut(&mut self.storage)?;
        let buf = storage.buf.get_mut();
        if matches!(buf, Buffer::External(_)) {
            return None;
        }
        T::vec_mut(buf)?.get_mut(offset..offset + n)
    }

    /// Whether [`Tensor::unique_contiguous_mut`] would lend this view's elements (of its own
    /// dtype): an op may write over it. (A caller that cannot tell uses this before giving the
    /// tensor up to an in-place kernel, whose fallback costs more than the plain kernel.)
    pub fn writable_in_place(&mut self) -> bool {
        self.is_contiguous()
            && Arc::get_mut(&mut self.storage)
                .is_some_and(|s| !matches!(s.buf.get_mut(), Buffer::External(_)))
    }

    /// Calls `f` with the elements as one row-major slice, if the tensor is contiguous and `T`
    /// is its element type: [`Tensor::with_view`] without building an ndarray view (the
    /// per-op cost of small tensors). The storage is read-locked (recursively) for the
    /// duration of `f`.
    pub(crate) fn with_slice<T: Element, R>(&self, f: impl FnOnce(&[T]) -> R) -> Option<R> {
        if !self.is_contiguous() {
            return None;
        }
        let guard = self.storage.buf.read_recursive();
        let v = T::vec_ref(&guard)?;
        v.get(self.offset..self.offset + self.numel()).map(f)
    }

    /// Calls `f` with an ndarray view of the elements, if `T` is this tensor's element type.
    /// The storage is read-locked (recursively) for the duration of `f`.
    pub fn with_view<T: Element, R>(&self, f: impl FnOnce(ArrayViewD<'_, T>) -> R) -> Option<R> {
        let guard = self.storage.buf.read_recursive();
        let v = T::vec_ref(&guard)?;
        let ptr = if self.numel() == 0 {
            NonNull::<T>::dangling().as_ptr() as *const T
        } else {
            // SAFETY: every view constructor keeps `offset + Σ (shape[i]-1)*strides[i]` inside the
            // buffer, so for a non-empty view `offset` is in bounds.
            unsafe { v.as_ptr().add(self.offset) }
        };
        // SAFETY: all elements addressed by (shape, strides) from `ptr` lie inside `v` (the view
        // invariant above); strides are non-negative; the read guard keeps the buffer alive and
        // free of writers while the view exists.
        let view = unsafe {
            ArrayViewD::from_shape_ptr(IxDyn(self.shape()).strides(IxDyn(self.view_strides())), ptr)
        };
        Some(f(view))
    }

    /// Calls `f` with a view of the elements converted to `T` (no copy if the dtype is `T`).
    pub fn with_view_as<T: Element, R>(&self, f: impl FnOnce(ArrayViewD<'_, T>) -> R) -> R {
        if self.dtype == T::DTYPE {
            let mut f = Some(f);
            if let Some(r) = self.with_view::<T, R>(|v| (f.take().expect("called once"))(v)) {
                return r;
            }
            // Unreachable: the dtype matches the buffer by construction.
            let a = self.to_array::<T>();
            return (f.take().expect("called once"))(a.view());
        }
        let a = self.to_array::<T>();
        f(a.view())
    }

    /// Calls `f` with a mutable view of the elements (callers skip empty views, whose strides
    /// may not describe a valid ndarray layout). Fails for expanded views (PyTorch's
    /// "more than one element of the written-to tensor refers to a single memory location") and
    /// if `T` is not the tensor's element type.
    pub(crate) fn with_view_mut<T: Element, R>(
        &self,
        f: impl FnOnce(ArrayViewMutD<'_, T>) -> R,
    ) -> Result<R> {
        self.assert_no_internal_overlap()?;
        let mut guard = self.storage.buf.write();
        let v = T::vec_mut(&mut guard).ok_or_else(|| {
            RuntimeError::DType(format!(
                "expected scalar type {} but found {}",
                self.dtype.scalar_type_name(),
                T::DTYPE.scalar_type_name()
            ))
        })?;
        let ptr = if self.numel() == 0 {
            NonNull::<T>::dangling().as_ptr()
        } else {
            // SAFETY: as in `with_view`.
            unsafe { v.as_mut_ptr().add(self.offset) }
        };
        // SAFETY: in bounds as in `with_view`; no two indices alias (checked above); the write
        // guard gives exclusive access for the duration of `f`.
        let view = unsafe {
            ArrayViewMutD::from_shape_ptr(IxDyn(self.shape()).strides(IxDyn(self.strides())), ptr)
        };
        Ok(f(view))
    }

    /// The elements converted to `T`, as an owned row-major array (allocates `numel` elements;
    /// see [`Tensor::to_vec`]).
    pub fn to_array<T: Element>(&self) -> ArrayD<T> {
        with_dtype!(self.dtype, S => {
            self.with_view::<S, ArrayD<T>>(|v| map_view(v, T::cast_from))
            .unwrap_or_else(|| ArrayD::from_elem(IxDyn(&[0]), T::default()))
        })
    }

    /// The elements converted to `T`, in row-major order. Allocates `numel` elements: an
    /// expanded view can be far larger than its storage, so check `numel()` first when the
    /// tensor comes from untrusted shapes (kernels use a checked allocation instead).
    pub fn to_vec<T: Element>(&self) -> Vec<T> {
        with_dtype!(self.dtype, S => {
            self.with_view::<S, Vec<T>>(|v| {
                let mut out: Vec<T> = Vec::with_capacity(v.len());
                let bytes = v.len() * std::mem::size_of::<T>();
                // Big copies on huge pages, as kernel outputs (they become ones in the pool).
                crate::bufpool::advise_huge_pages(out.as_ptr().cast(), bytes);
                match v.as_slice() {
                    Some(s) => out.extend(s.iter().map(|&x| T::cast_from(x))),
                    None => out.extend(v.iter().map(|&x| T::cast_from(x))),
                }
                out
            })
            .unwrap_or_default()
        })
    }

    /// The single element as a Python scalar (`bool`/`int`/`float` by dtype category).
    pub fn item(&self) -> Result<Scalar> {
        let n = self.numel();
        if n != 1 {
            return Err(RuntimeError::ItemNotScalar { numel: n });
        }
        Ok(self.get_linear(0))
    }

    /// Element number `i` in row-major order of the view (caller guarantees `i < numel`).
    pub(crate) fn get_linear(&self, mut i: usize) -> Scalar {
        let mut pos = self.offset;
        for d in (0..self.shape().len()).rev() {
            let n = self.shape()[d].max(1);
            pos += (i % n) * self.strides()[d];
            i /= n;
        }
        let guard = self.storage.buf.read_recursive();
        match &*guard {
            Buffer::Bool(v) => Scalar::Bool(v.get(pos).copied().unwrap_or_default()),
            Buffer::Int32(v) => Scalar::Int(v.get(pos).copied().unwrap_or_default() as i64),
            Buffer::Int64(v) => Scalar::Int(v.get(pos).copied().unwrap_or_default()),
            Buffer::Float32(v) => Scalar::Float(v.get(pos).copied().unwrap_or_default() as f64),
            Buffer::Float64(v) => Scalar::Float(v.get(pos).copied().unwrap_or_default()),
            Buffer::External(e) => with_dtype!(self.dtype, T => {
                let x: T = e
                    .as_slice::<T>()
                    .and_then(|v| v.get(pos).copied())
                    .unwrap_or_default();
                match self.dtype {
                    DType::Bool => Scalar::Bool(x.to_bool()),
                    DType::Int32 | DType::Int64 => Scalar::Int(x.to_i64()),
                    DType::Float32 | DType::Float64 => Scalar::Float(x.to_f64()),
                }
            }),
        }
    }

    /// A raw description of the view for native code (see docs/abi.md).
    pub fn raw_view(&self) -> RawView {
        let elem = self.dtype.size_of();
        RawView {
            data: (self.storage.base + self.offset * elem) as *mut u8,
            dtype: self.dtype.code(),
            ndim: self.shape().len() as u32,
            // usize and i64 have the same layout on the 64-bit targets we support and every
            // size/stride fits in an i64 (allocations are capped far below 2^63 bytes).
            shape: self.shape().as_ptr() as *const i64,
            strides: self.strides().as_ptr() as *const i64,
        }
    }

    /// Number of elements of the underlying storage.
    pub fn storage_len(&self) -> usize {
        self.storage.len
    }

    // ---------------------------------------------------------------- views

    /// A new view of the same storage. Callers guarantee the view stays inside the storage.
    pub(crate) fn make_view(
        &self,
        shape: Vec<usize>,
        strides: Vec<usize>,
        offset: usize,
    ) -> Tensor {
        Tensor {
            storage: Arc::clone(&self.storage),
            dtype: self.dtype,
            dims: dims_of(&shape, &strides),
            offset,
        }
    }

    /// `x.transpose(d0, d1)` (a view).
    pub fn transpose(&self, d0: i64, d1: i64) -> Result<Tensor> {
        let r = self.dim();
        let a = wrap_dim(d0, r)?;
        let b = wrap_dim(d1, r)?;
        if r == 0 {
            return Ok(self.clone());
        }
        let mut shape = self.shape().to_vec();
        let mut strides = self.strides().to_vec();
        shape.swap(a, b);
        strides.swap(a, b);
        Ok(self.make_view(shape, strides, self.offset))
    }

    /// `x.t()`: transpose of a tensor of rank <= 2.
    pub fn t(&self) -> Result<Tensor> {
        match self.dim() {
            0 | 1 => Ok(self.clone()),
            2 => self.transpose(0, 1),
            n => Err(RuntimeError::Shape(format!(
                "t() expects a tensor with <= 2 dimensions, but self is {n}D"
            ))),
        }
    }

    /// `x.permute(dims)` (a view).
    pub fn permute(&self, dims: &[i64]) -> Result<Tensor> {
        let r = self.dim();
        if dims.len() != r {
            return Err(RuntimeError::Shape(format!(
                "permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired ordering of dimensions i.e. input.dim() = {r} is not equal to len(dims) = {}",
                dims.len()
            )));
        }
        let mut seen = vec![false; r];
        let mut shape = Vec::with_capacity(r);
        let mut strides = Vec::with_capacity(r);
        for &d in dims {
            let d = wrap_dim(d, r)?;
            if seen[d] {
                return Err(RuntimeError::Value(
                    "permute(): duplicate dims are not allowed.".into(),
                ));
            }
            seen[d] = true;
            shape.push(self.shape()[d]);
            strides.push(self.strides()[d]);
        }
        Ok(self.make_view(shape, strides, self.offset))
    }

    /// `x.expand(sizes)` (a view; `-1` keeps a dimension).
    pub fn expand(&self, sizes: &[i64]) -> Result<Tensor> {
        let r = self.dim();
        if sizes.len() < r {
            return Err(RuntimeError::Shape(format!(
                "expand(torch.FloatTensor{{{}}}, size=[{}]): the number of sizes provided ({}) must be greater or equal to the number of dimensions in the tensor ({})",
                fmt_list(self.shape()),
                fmt_list(sizes),
                sizes.len(),
                r
            )));
        }
        let lead = sizes.len() - r;
        let mut shape = vec![0usize; sizes.len()];
        let mut strides = vec![0usize; sizes.len()];
        for i in (0..sizes.len()).rev() {
            let want = sizes[i];
            if i < lead {
                if want < 0 {
                    return Err(RuntimeError::Shape(format!(
                        "The expanded size of the tensor ({want}) isn't allowed in a leading, non-existing dimension {i}"
                    )));
                }
                shape[i] = want as usize;
                strides[i] = 0;
            } else {
                let have = self.shape()[i - lead];
                let st = self.strides()[i - lead];
                if want == -1 || want as usize == have && want >= 0 {
                    shape[i] = have;
                    strides[i] = st;
                } else if have == 1 && want >= 0 {
                    shape[i] = want as usize;
                    strides[i] = 0;
                } else {
                    return Err(RuntimeError::Shape(format!(
                        "The expanded size of the tensor ({want}) must match the existing size ({have}) at non-singleton dimension {i}.  Target sizes: [{}].  Tensor sizes: [{}]",
                        fmt_list(sizes),
                        fmt_list(self.shape())
                    )));
                }
            }
        }
        checked_numel(&shape)?;
        Ok(self.make_view(shape, strides, self.offset))
    }

    /// Broadcasts to `shape` (a view); the shapes must be broadcast-compatible.
    pub fn broadcast_to(&self, shape: &[usize]) -> Result<Tensor> {
        if shape == self.shape() {
            return Ok(self.clone());
        }
        let sizes: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
        self.expand(&sizes)
    }

    /// `x.squeeze()`: drops every size-1 dimension.
    pub fn squeeze(&self) -> Tensor {
        let (shape, strides) = self
            .shape()
            .iter()
            .zip(self.strides())
            .filter(|(n, _)| **n != 1)
            .map(|(&n, &s)| (n, s))
            .unzip();
        self.make_view(shape, strides, self.offset)
    }

    /// `x.squeeze(dim)`: drops `dim` if it has size 1.
    pub fn squeeze_dim(&self, dim: i64) -> Result<Tensor> {
        let d = wrap_dim(dim, self.dim())?;
        if self.dim() == 0 || self.shape()[d] != 1 {
            return Ok(self.clone());
        }
        let mut shape = self.shape().to_vec();
        let mut strides = self.strides().to_vec();
        shape.remove(d);
        strides.remove(d);
        Ok(self.make_view(shape, strides, self.offset))
    }

    /// `x.unsqueeze(dim)`: inserts a size-1 dimension (`dim` in `[-rank-1, rank]`).
    pub fn unsqueeze(&self, dim: i64) -> Result<Tensor> {
        let d = wrap_dim(dim, self.dim() + 1)?;
        let mut shape = self.shape().to_vec();
        let mut strides = self.strides().to_vec();
        let st = if d < self.dim() {
            self.strides()[d] * self.shape()[d].max(1)
        } else {
            1
        };
        shape.insert(d, 1);
        strides.insert(d, st);
        Ok(self.make_view(shape, strides, self.offset))
    }

    /// `x.narrow`-style slice `start:stop:step` along `dim` with Python's clamping rules
    /// (a view). `step` must be positive.
    pub fn slice(
        &self,
        dim: i64,
        start: Option<i64>,
        stop: Option<i64>,
        step: i64,
    ) -> Result<Tensor> {
        if self.dim() == 0 {
            return Err(RuntimeError::Index(
                "slice() cannot be applied to a 0-dim tensor.".into(),
            ));
        }
        let d = wrap_dim(dim, self.dim())?;
        // Python-level refusals in PyTorch (a `ValueError`, not an ATen `RuntimeError`): a zero
        // step is refused by Python's slice protocol, a negative one by `Tensor.__getitem__`.
        if step == 0 {
            return Err(RuntimeError::ValueError("slice step cannot be zero".into()));
        }
        if step < 0 {
            return Err(RuntimeError::ValueError(
                "step must be greater than zero".into(),
            ));
        }
        let n = self.shape()[d] as i64;
        let clamp = |v: Option<i64>, default: i64| -> i64 {
            match v {
                None => default,
                Some(v) if v < 0 => v.saturating_add(n).max(0),
                Some(v) => v.min(n),
            }
        };
        let s = clamp(start, 0);
        let e = clamp(stop, n).max(s);
        let len = ((e - s) as i128 + step as i128 - 1) / step as i128;
        let mut shape = self.shape().to_vec();
        let mut strides = self.strides().to_vec();
        shape[d] = len as usize;
        let offset = if len > 0 {
            self.offset + s as usize * self.strides()[d]
        } else {
            self.offset
        };
        // With a step past the end only one element is addressed, so the stride value is moot;
        // saturate instead of overflowing.
        strides[d] = self.strides()[d].saturating_mul(step as usize);
        Ok(self.make_view(shape, strides, offset))
    }

    /// `x.select(dim, index)`: `x[..., index, ...]`, removing `dim` (a view).
    pub fn select(&self, dim: i64, index: i64) -> Result<Tensor> {
        if self.dim() == 0 {
            return Err(RuntimeError::Index(
                "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ to convert a 0-dim tensor to a number".into(),
            ));
        }
        let d = wrap_dim(dim, self.dim())?;
        let n = self.shape()[d] as i64;
        if index < -n || index >= n {
            return Err(RuntimeError::IndexOutOfRange {
                index,
                dim: d,
                size: n as usize,
            });
        }
        let i = if index < 0 { index + n } else { index } as usize;
        let mut shape = self.shape().to_vec();
        let mut strides = self.strides().to_vec();
        shape.remove(d);
        strides.remove(d);
        Ok(self.make_view(shape, strides, self.offset + i * self.strides()[d]))
    }

    /// Resolves a requested shape with at most one `-1` against this tensor's element count.
    pub fn infer_size(&self, sizes: &[i64]) -> Result<Vec<usize>> {
        infer_size(sizes, self.numel())
    }

    /// `x.view(shape)`: a view with a new shape; fails when the strides do not allow it.
    pub fn view(&self, sizes: &[i64]) -> Result<Tensor> {
        let shape = self.infer_size(sizes)?;
        match compute_view_strides(self.shape(), self.strides(), &shape) {
            Some(strides) => Ok(self.make_view(shape, strides, self.offset)),
            None => Err(RuntimeError::Shape(
                "view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.".into(),
            )),
        }
    }

    /// `x.reshape(shape)`: a view when possible, else a contiguous copy.
    pub fn reshape(&self, sizes: &[i64]) -> Result<Tensor> {
        let shape = self.infer_size(sizes)?;
        match compute_view_strides(self.shape(), self.strides(), &shape) {
            Some(strides) => Ok(self.make_view(shape, strides, self.offset)),
            None => {
                let c = self.contiguous()?;
                let strides = contiguous_strides(&shape);
                Ok(c.make_view(shape, strides, 0))
            }
        }
    }

    /// `x.flatten(start_dim, end_dim)`.
    pub fn flatten(&self, start: i64, end: i64) -> Result<Tensor> {
        if self.dim() == 0 {
            return self.reshape(&[1]);
        }
        let s = wrap_dim(start, self.dim())?;
        let e = wrap_dim(end, self.dim())?;
        if s > e {
            return Err(RuntimeError::Value(
                "flatten() has invalid args: start_dim cannot come after end_dim".into(),
            ));
        }
        let mut sizes: Vec<i64> = self.shape()[..s].iter().map(|&d| d as i64).collect();
        sizes.push(self.shape()[s..=e].iter().product::<usize>() as i64);
        sizes.extend(self.shape()[e + 1..].iter().map(|&d| d as i64));
        self.reshape(&sizes)
    }

    /// `x.contiguous()`: `self` if already contiguous, else a row-major copy.
    pub fn contiguous(&self) -> Result<Tensor> {
        if self.is_contiguous() {
            return Ok(self.clone());
        }
        self.clone_data()
    }

    /// NumPy's result of an integer subscript `x[i, …]` given the (view) result of the same
    /// subscript in PyTorch's sense: when it is one element (0-d), a NumPy scalar, i.e. a copy
    /// that shares nothing; otherwise (fewer ints than dims) NumPy's view, `self`.
    pub fn numpy_element(&self) -> Result<Tensor> {
        if self.dim() == 0 {
            return self.clone_data();
        }
        Ok(self.clone())
    }

    /// `x.clone()` in PyTorch's sense: a fresh, contiguous copy that shares nothing.
    pub fn clone_data(&self) -> Result<Tensor> {
        check_alloc(self.shape(), self.dtype)?;
        with_dtype!(self.dtype, T => Tensor::from_vec(self.to_vec::<T>(), self.shape()))
    }

    /// `x.to(dtype)`: `self` (aliasing) if the dtype already matches, else a converted copy.
    pub fn to_dtype(&self, dtype: DType) -> Result<Tensor> {
        if dtype == self.dtype {
            return Ok(self.clone());
        }
        check_alloc(self.shape(), dtype)?;
        Ok(with_dtype!(dtype, T => Tensor::from_array(self.to_array::<T>())))
    }

    /// Reads the storage elements at `offsets` (absolute positions) as `T` (converted).
    pub(crate) fn read_offsets<T: Element>(&self, offsets: &[usize]) -> Result<Vec<T>> {
        let guard = self.storage.buf.read_recursive();
        let out = with_dtype!(self.dtype, S => {
            let v = S::vec_ref(&guard).ok_or_else(|| RuntimeError::DType("storage dtype".into()))?;
            offsets
                .iter()
                .map(|&o| v.get(o).map(|&x| T::cast_from(x)))
                .collect::<Option<Vec<T>>>()
        });
        out.ok_or_else(|| RuntimeError::Index("index out of range in self".into()))
    }

    /// Writes `values` (already of this tensor's element type) at storage `offsets`.
    pub(crate) fn write_offsets<T: Element>(&self, offsets: &[usize], values: &[T]) -> Result<()> {
        let mut guard = self.storage.buf.write();
        let v =
            T::vec_mut(&mut guard).ok_or_else(|| RuntimeError::DType("storage dtype".into()))?;
        for (&o, &x) in offsets.iter().zip(values) {
            match v.get_mut(o) {
                Some(slot) => *slot = x,
                None => return Err(RuntimeError::Index("index out of range in self".into())),
            }
        }
        Ok(())
    }

    // ---------------------------------------------------------------- mutation

    /// `self.copy_(src)`: writes `src` (broadcast to `self`'s shape, converted to `self`'s dtype)
    /// into this view; visible through every view of the storage.
    pub fn copy_(&self, src: &Tensor) -> Result<()> {
        check_alloc(self.shape(), self.dtype)?;
        if self.numel() == 0 {
            // Still validate the shapes, as PyTorch does.
            src.broadcast_to(self.shape())?;
            return Ok(());
        }
        let src = src.broadcast_to(self.shape()).map_err(|_| {
            RuntimeError::Shape(format!(
                "output with shape [{}] doesn't match the broadcast shape [{}]",
                fmt_list(self.shape()),
                fmt_list(
                    &crate::ops::broadcast_shapes(self.shape(), src.shape()).unwrap_or_default()
                )
            ))
        })?;
        // Read fully before taking the write lock: the source may alias the destination.
        with_dtype!(self.dtype, T => {
            let data = src.to_array::<T>();
            self.with_view_mut::<T, ()>(|mut dst| dst.assign(&data))
        })
    }

    /// `self.fill_(value)`.
    pub fn fill_(&self, value: Scalar) -> Result<()> {
        if self.numel() == 0 {
            return Ok(());
        }
        with_dtype!(self.dtype, T => {
            let v = scalar_to::<T>(value);
            self.with_view_mut::<T, ()>(|mut dst| dst.fill(v))
        })
    }
}

/// `f` applied to every element, as a new row-major array. (ndarray's `mapv` keeps the input's
/// strides, which for size-1 or expanded axes can be strides an owned array must not have.)
pub(crate) fn map_view<S: Copy, D>(v: ArrayViewD<'_, S>, f: impl Fn(S) -> D) -> ArrayD<D> {
    let shape = IxDyn(v.shape());
    let data: Vec<D> = match v.as_slice() {
        Some(s) => s.iter().map(|&x| f(x)).collect(),
        None => v.iter().map(|&x| f(x)).collect(),
    };
    ArrayD::from_shape_vec(shape, data).expect("the data length matches the shape")
}

/// Appends the storage positions of a (shape, strides, offset) view in row-major order.
pub(crate) fn offsets_into(shape: &[usize], strides: &[usize], base: usize, out: &mut Vec<usize>) {
    if shape.contains(&0) {
        return;
    }
    match shape.len() {
        0 => out.push(base),
        _ => {
            let (n, s) = (shape[0], strides[0]);
            for i in 0..n {
                offsets_into(&shape[1..], &strides[1..], base + i * s, out);
            }
        }
    }
}

/// Converts a Python scalar to element type `T` with PyTorch's cast rules.
pub(crate) fn scalar_to<T: Element>(s: Scalar) -> T {
    match s {
        Scalar::Bool(b) => T::from_bool(b),
        Scalar::Int(i) => T::from_i64(i),
        Scalar::Float(f) => T::from_f64(f),
    }
}

/// `[2, 3]`-style list body used in PyTorch messages.
pub(crate) fn fmt_list<T: std::fmt::Display>(v: &[T]) -> String {
    v.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Resolves a requested shape with at most one `-1` for `numel` elements (PyTorch's `infer_size`).
pub fn infer_size(sizes: &[i64], numel: usize) -> Result<Vec<usize>> {
    let invalid = || {
        RuntimeError::Shape(format!(
            "shape '[{}]' is invalid for input of size {numel}",
            fmt_list(sizes)
        ))
    };
    let mut infer = None;
    let mut known: usize = 1;
    for (i, &s) in sizes.iter().enumerate() {
        if s == -1 {
            if infer.is_some() {
                return Err(RuntimeError::Shape(
                    "only one dimension can be inferred".into(),
                ));
            }
            infer = Some(i);
        } else if s < 0 {
            return Err(RuntimeError::Shape(format!("invalid shape dimension {s}")));
        } else {
            known = known.checked_mul(s as usize).ok_or_else(invalid)?;
        }
    }
    let mut out: Vec<usize> = sizes.iter().map(|&s| s.max(0) as usize).collect();
    match infer {
        Some(i) => {
            if known == 0 {
                return Err(RuntimeError::Shape(format!(
                    "cannot reshape tensor of {numel} elements into shape [{}] because the unspecified dimension size -1 can be any value and is ambiguous",
                    fmt_list(sizes)
                )));
            }
            if !numel.is_multiple_of(known) {
                return Err(invalid());
            }
            out[i] = numel / known;
        }
        None => {
            if known != numel {
                return Err(invalid());
            }
        }
    }
    // An empty tensor may be given any shape with a 0 in it, but not one whose other dims
    // could never be materialized.
    checked_numel(&out)?;
    Ok(out)
}

/// PyTorch's `computeStride`: strides that view `(old_shape, old_strides)` as `new_shape`
/// without copying, if they exist.
pub(crate) fn compute_view_strides(
    old_shape: &[usize],
    old_strides: &[usize],
    new_shape: &[usize],
) -> Option<Vec<usize>> {
    let numel: usize = old_shape.iter().product();
    if numel == 0 {
        return Some(if old_shape == new_shape {
            old_strides.to_vec()
        } else {
            contiguous_strides(new_shape)
        });
    }
    if old_shape.is_empty() {
        return Some(vec![1; new_shape.len()]);
    }
    let mut new_strides = vec![0usize; new_shape.len()];
    let mut view_d = new_shape.len() as isize - 1;
    let mut chunk_base_stride = *old_strides.last()?;
    let mut tensor_numel = 1usize;
    let mut view_numel = 1usize;
    for tensor_d in (0..old_shape.len()).rev() {
        tensor_numel *= old_shape[tensor_d];
        if tensor_d == 0
            || (old_shape[tensor_d - 1] != 1
                && old_strides[tensor_d - 1] != tensor_numel * chunk_base_stride)
        {
            while view_d >= 0 && (view_numel < tensor_numel || new_shape[view_d as usize] == 1) {
                new_strides[view_d as usize] = view_numel * chunk_base_stride;
                view_numel *= new_shape[view_d as usize];
                view_d -= 1;
            }
            if view_numel != tensor_numel {
                return None;
            }
            if tensor_d > 0 {
                chunk_base_stride = old_strides[tensor_d - 1];
                tensor_numel = 1;
                view_numel = 1;
            }
        }
    }
    if view_d != -1 {
        return None;
    }
    Some(new_strides)
}

impl std::fmt::Debug for Tensor {
    /// Metadata plus PyTorch's (summarized) repr, never the whole storage buffer.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tensor")
            .field("dtype", &self.dtype.name())
            .field("shape", &self.shape())
            .field("strides", &self.strides())
            .field("offset", &self.offset)
            .field("data", &format_args!("{}", crate::print::tensor_repr(self)))
            .finish()
    }
}

impl PartialEq for Tensor {
    /// Structural equality (dtype, shape and elements; NaN equals NaN) — for tests, not `==` ops.
    fn eq(&self, other: &Tensor) -> bool {
        if self.dtype != other.dtype || self.shape() != other.shape() {
            return false;
        }
        with_dtype!(self.dtype, T => {
            let a = self.to_array::<T>();
            let b = other.to_array::<T>();
            a.iter().zip(b.iter()).all(|(x, y)| x == y || (x.is_nan_elem() && y.is_nan_elem()))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    fn ar(n: usize, shape: &[usize]) -> Tensor {
        Tensor::from_vec((0..n).map(|v| v as f32).collect(), shape).unwrap()
    }

    /// Memory owned outside the runtime, with a flag set when its owner is dropped.
    struct Owner(Arc<std::sync::atomic::AtomicBool>);
    impl Drop for Owner {
        fn drop(&mut self) {
            self.0.store(true, std::sync::atomic::Ordering::SeqCst);
        }
    }

    #[test]
    fn external_memory_is_viewed_written_and_released() {
        let mut data: Vec<f64> = (0..6).map(|v| v as f64).collect();
        let dropped = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let ptr = data.as_mut_ptr() as *mut u8;
        // SAFETY: `data` outlives the tensor (checked by the flag below) and is not moved.
        let t = unsafe {
            Tensor::from_external(
                DType::Float64,
                ptr,
                6,
                &[3, 2],
                &[1, 3],
                Box::new(Owner(dropped.clone())),
            )
        }
        .unwrap();
        assert_eq!(t.to_vec::<f64>(), vec![0.0, 3.0, 1.0, 4.0, 2.0, 5.0]);
        assert!(t.item().is_err());
        assert_eq!(t.raw_view().data, ptr);
        let row = t.select(0, 1).unwrap();
        row.fill_(Scalar::Float(9.0)).unwrap();
        assert_eq!(
            t.select(1, 0)
                .unwrap()
                .select(0, 1)
                .unwrap()
                .item()
                .unwrap(),
            Scalar::Float(9.0)
        );
        drop((t, row));
        assert!(dropped.load(std::sync::atomic::Ordering::SeqCst));
        assert_eq!(data, vec![0.0, 9.0, 2.0, 3.0, 9.0, 5.0], "written in place");
    }

    #[test]
    fn external_views_that_reach_outside_are_refused() {
        let mut data = [0i32; 4];
        let ptr = data.as_mut_ptr() as *mut u8;
        let make = |len, shape: Vec<usize>, strides: Vec<usize>, p: *mut u8| {
            // SAFETY: `data` outlives every tensor made here (each is dropped at once).
            unsafe { Tensor::from_external(DType::Int32, p, len, &shape, &strides, Box::new(())) }
        };
        assert!(make(4, vec![2, 2], vec![2, 1], ptr).is_ok());
        assert!(
            make(4, vec![2, 3], vec![2, 1], ptr).is_err(),
            "past the end"
        );
        assert!(make(4, vec![2], vec![1, 1], ptr).is_err(), "rank mismatch");
        assert!(
            make(4, vec![usize::MAX, 2], vec![usize::MAX, 1], ptr).is_err(),
            "overflow"
        );
        assert!(make(4, vec![2], vec![1], std::ptr::null_mut()).is_err());
        assert!(
            make(3, vec![2], vec![1], ptr.wrapping_add(1)).is_err(),
            "misaligned"
        );
        assert!(
            make(0, vec![0, 5], vec![5, 1], ptr).is_ok(),
            "empty views need no memory"
        );
    }

    #[test]
    fn views_share_storage_and_see_writes() {
        let x = ar(6, &[2, 3]);
        let t = x.t().unwrap();
        assert!(!t.is_contiguous());
        assert!(t.shares_storage(&x));
        let r = x.reshape(&[3, 2]).unwrap();
        assert!(
            r.shares_storage(&x),
            "reshape of a contiguous tensor is a view"
        );
        let rt = t.reshape(&[-1]).unwrap();
        assert!(!rt.shares_storage(&x), "reshape of a transpose copies");
        assert_eq!(rt.to_vec::<f32>(), vec![0.0, 3.0, 1.0, 4.0, 2.0, 5.0]);
        assert!(t.view(&[6]).is_err());
        let u = x.unsqueeze(0).unwrap().unsqueeze(-1).unwrap();
        assert_eq!(u.shape(), &[1, 2, 3, 1]);
        assert_eq!(u.squeeze().shape(), &[2, 3]);
        // a write through one view is visible through all of them
        t.select(0, 2).unwrap().fill_(Scalar::Float(-1.0)).unwrap();
        assert_eq!(x.to_vec::<f32>(), vec![0.0, 1.0, -1.0, 3.0, 4.0, -1.0]);
        assert_eq!(r.to_vec::<f32>()[2], -1.0);
        let c = t.contiguous().unwrap();
        assert!(c.is_contiguous() && !c.shares_storage(&x));
        assert!(x.contiguous().unwrap().shares_storage(&x));
    }

    #[test]
    fn expand_is_a_read_only_broadcast_view() {
        let x = ar(3, &[3, 1]);
        let e = x.expand(&[2, -1, 4]).unwrap();
        assert_eq!(e.shape(), &[2, 3, 4]);
        assert_eq!(e.strides()[0], 0);
        assert_eq!(e.to_vec::<f32>()[..4], [0.0; 4]);
        assert!(
            e.fill_(Scalar::Int(1)).is_err(),
            "writing an expanded view is refused"
        );
        assert!(x.expand(&[2, 3, 5]).is_ok());
        assert!(ar(6, &[2, 3]).expand(&[4, 3]).is_err());
    }

    #[test]
    fn slicing_steps_negative_indices_and_item() {
        let x = ar(10, &[10]);
        let s = x.slice(0, Some(-4), None, 2).unwrap();
        assert_eq!(s.to_vec::<f32>(), vec![6.0, 8.0]);
        assert_eq!(x.slice(0, Some(20), Some(30), 1).unwrap().numel(), 0);
        assert_eq!(
            x.slice(0, Some(i64::MIN), Some(i64::MAX), i64::MAX)
                .unwrap()
                .numel(),
            1
        );
        // PyTorch refuses non-positive steps in Python, so with a ValueError (not RuntimeError)
        let zero = x.slice(0, None, None, 0).unwrap_err();
        assert_eq!(zero.kind(), ErrorKind::ValueError);
        assert_eq!(zero.to_string(), "slice step cannot be zero");
        let neg = x.slice(0, None, None, -1).unwrap_err();
        assert_eq!(neg.kind(), ErrorKind::ValueError);
        assert_eq!(neg.to_string(), "step must be greater than zero");
        assert_eq!(x.select(0, -1).unwrap().item().unwrap(), Scalar::Float(9.0));
        assert_eq!(x.item(), Err(RuntimeError::ItemNotScalar { numel: 10 }));
        assert_eq!(
            x.select(1, 0).unwrap_err().to_string(),
            "Dimension out of range (expected to be in range of [-1, 0], but got 1)"
        );
    }

    #[test]
    fn raw_view_addresses_elements() {
        let x = ar(6, &[2, 3]).t().unwrap();
        let v = x.raw_view();
        assert_eq!(v.ndim, 2);
        // SAFETY: the view describes `x`, which is alive.
        let (shape, strides) = unsafe {
            (
                std::slice::from_raw_parts(v.shape, 2),
                std::slice::from_raw_parts(v.strides, 2),
            )
        };
        assert_eq!(shape, &[3, 2]);
        assert_eq!(strides, &[1, 3]);
        // element [2, 1] = x.t()[2][1] = original[1][2] = 5
        let off = (2 * strides[0] + strides[1]) as usize;
        // SAFETY: in bounds of the 6-element storage.
        assert_eq!(unsafe { *(v.data as *const f32).add(off) }, 5.0);
    }

    #[test]
    fn conversions_follow_pytorch_casts() {
        let f = Tensor::from_slice(&[-2.7f32, 2.7, 1e20, f32::NAN]);
        assert_eq!(
            f.to_dtype(DType::Int64).unwrap().to_vec::<i64>(),
            vec![-2, 2, i64::MIN, i64::MIN]
        );
        let i = Tensor::from_slice(&[(1i64 << 40) + 5]);
        assert_eq!(i.to_dtype(DType::Int32).unwrap().to_vec::<i32>(), vec![5]);
        let z = Tensor::from_slice(&[-0.0f64, 0.1]);
        assert_eq!(
            z.to_dtype(DType::Bool).unwrap().to_vec::<bool>(),
            vec![false, true]
        );
        assert!(Tensor::zeros(&[1 << 20, 1 << 20, 1 << 10], DType::Float32).is_err());
        assert_eq!(Tensor::zeros(&[4, 0], DType::Int64).unwrap().numel(), 0);
    }
}
