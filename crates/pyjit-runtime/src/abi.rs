//! The `extern "C"` ABI that native code (Cranelift output) calls. See docs/abi.md.
//!
//! * Tensors cross the boundary as opaque `*mut PjTensor` handles with explicit reference
//!   counting: every function that returns a handle returns it with one reference owned by the
//!   caller; `pj_tensor_retain` adds one, `pj_tensor_release` drops one and frees the tensor (not
//!   necessarily its storage, which views may share) at zero. [`live_tensor_count`] counts
//!   handles alive, so leak tests can assert it returns to its starting value.
//! * Every fallible entry point returns a [`PjStatus`] (0 = ok); the message of the last error on
//!   the calling thread is available from `pj_last_error_message`.
//! * Kernels that work on raw memory take [`RawView`]s (data pointer, dtype, rank, shape, strides
//!   in elements) so fused native loops and runtime kernels can share buffers.
//! * No panic crosses the boundary: each entry point runs under `catch_unwind`.

use std::cell::RefCell;
use std::ffi::{CString, c_char};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicIsize, Ordering};

use ndarray::{ArrayViewD, ArrayViewMutD, IxDyn, ShapeBuilder};

use crate::dtype::DType;
use crate::element::Element;
use crate::error::RuntimeError;
use crate::ops::{self, BinaryOp, CmpOp, Input};
use crate::schema::{self, OpId};
use crate::tensor::{RawView, Tensor};
use crate::value::{Scalar, Value};
use crate::with_dtype;

/// Status codes returned by every fallible ABI function.
#[repr(i32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PjStatus {
    Ok = 0,
    BroadcastMismatch = 1,
    IndexOutOfRange = 2,
    DimOutOfRange = 3,
    ZeroDivision = 4,
    ItemNotScalar = 5,
    AllocationTooLarge = 6,
    DTypeError = 7,
    ShapeError = 8,
    IndexError = 9,
    ValueError = 10,
    NotImplemented = 11,
    IoError = 12,
    BindError = 13,
    NullPointer = 14,
    InvalidArgument = 15,
    Panic = 16,
}

impl PjStatus {
    pub fn of(e: &RuntimeError) -> PjStatus {
        match e {
            RuntimeError::BroadcastMismatch { .. } => PjStatus::BroadcastMismatch,
            RuntimeError::IndexOutOfRange { .. } => PjStatus::IndexOutOfRange,
            RuntimeError::DimOutOfRange { .. } => PjStatus::DimOutOfRange,
            RuntimeError::ZeroDivision => PjStatus::ZeroDivision,
            RuntimeError::ItemNotScalar { .. } => PjStatus::ItemNotScalar,
            RuntimeError::AllocationTooLarge { .. } => PjStatus::AllocationTooLarge,
            RuntimeError::DType(_) => PjStatus::DTypeError,
            RuntimeError::Shape(_) => PjStatus::ShapeError,
            RuntimeError::Index(_) => PjStatus::IndexError,
            RuntimeError::Value(_) | RuntimeError::ValueError(_) => PjStatus::ValueError,
            RuntimeError::NotImplemented(_) => PjStatus::NotImplemented,
            RuntimeError::Io(_) => PjStatus::IoError,
            RuntimeError::Bind(_) => PjStatus::BindError,
        }
    }
}

/// An owned tensor handle: opaque to C but for its first two words, which native code reads
/// inline (docs/abi.md): the address of the tensor's sizes and their number (its rank). The
/// sizes live in the tensor's own immutable dims, which never move: the address stays valid
/// while the handle is alive.
#[repr(C)]
pub struct PjTensor {
    shape: *const usize,
    rank: usize,
    tensor: Tensor,
}

// SAFETY: `shape` points into `tensor`'s own dims, which are never written: the handle is
// shared between threads exactly as safely as the tensor.
unsafe impl Send for PjTensor {}
// SAFETY: as above.
unsafe impl Sync for PjTensor {}

/// The byte offset, from a handle, of the address of its tensor's sizes ([`PjTensor`]).
pub const PJ_TENSOR_SHAPE_OFFSET: i32 = std::mem::offset_of!(PjTensor, shape) as i32;
/// The byte offset, from a handle, of its tensor's rank ([`PjTensor`]).
pub const PJ_TENSOR_RANK_OFFSET: i32 = std::mem::offset_of!(PjTensor, rank) as i32;

static LIVE: AtomicIsize = AtomicIsize::new(0);

impl Drop for PjTensor {
    fn drop(&mut self) {
        LIVE.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Number of tensor handles currently alive (created and not yet released to zero).
pub fn live_tensor_count() -> isize {
    LIVE.load(Ordering::SeqCst)
}

/// Wraps a tensor in a new handle with one reference (owned by the caller).
pub fn handle_from_tensor(t: Tensor) -> *mut PjTensor {
    LIVE.fetch_add(1, Ordering::SeqCst);
    let (shape, rank) = (t.shape().as_ptr(), t.dim());
    Arc::into_raw(Arc::new(PjTensor {
        shape,
        rank,
        tensor: t,
    })) as *mut PjTensor
}

/// The tensor behind a handle (a cheap clone sharing storage).
///
/// # Safety
/// `h` must be a live handle returned by this ABI.
pub unsafe fn tensor_of_handle(h: *const PjTensor) -> Option<Tensor> {
    // SAFETY: the caller guarantees `h` is a live handle, i.e. a pointer from `Arc::into_raw`
    // whose reference count is at least one.
    unsafe { h.as_ref().map(|p| p.tensor.clone()) }
}

/// The tensor behind a handle, taking over the caller's reference: the tensor moves out when
/// that was the last reference, else it is a cheap clone and the reference is released.
///
/// # Safety
/// `h` must be a live handle returned by this ABI whose reference the caller owns; it must not
/// be used after this call.
pub unsafe fn tensor_from_handle(h: *mut PjTensor) -> Option<Tensor> {
    if h.is_null() {
        return None;
    }
    // SAFETY: the caller passes an owned reference from `Arc::into_raw`.
    let arc = unsafe { Arc::from_raw(h as *const PjTensor) };
    match Arc::try_unwrap(arc) {
        Ok(handle) => {
            // The handle's Drop only counts it as released: do that, and move the tensor out.
            let handle = std::mem::ManuallyDrop::new(handle);
            LIVE.fetch_sub(1, Ordering::SeqCst);
            // SAFETY: `handle` is never used or dropped again.
            Some(unsafe { std::ptr::read(&handle.tensor) })
        }
        Err(shared) => Some(shared.tensor.clone()),
    }
}

thread_local! {
    static LAST_ERROR: RefCell<Option<(PjStatus, CString)>> = const { RefCell::new(None) };
}

fn set_error(status: PjStatus, msg: &str) -> i32 {
    let c = CString::new(msg.replace('\0', " ")).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = Some((status, c)));
    status as i32
}

fn guard(f: impl FnOnce() -> Result<(), RuntimeError>) -> i32 {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => PjStatus::Ok as i32,
        Ok(Err(e)) => set_error(PjStatus::of(&e), &e.to_string()),
        Err(_) => set_error(PjStatus::Panic, "internal error: panic in the runtime"),
    }
}

fn null() -> RuntimeError {
    RuntimeError::Value("null pointer passed to the runtime ABI".into())
}

/// The message of the last error on this thread (NUL-terminated, valid until the next error or
/// `pj_clear_error` on this thread), or null if none.
#[unsafe(no_mangle)]
pub extern "C" fn pj_last_error_message() -> *const c_char {
    LAST_ERROR.with(|e| {
        e.borrow()
            .as_ref()
            .map_or(std::ptr::null(), |(_, m)| m.as_ptr())
    })
}

/// The status of the last error on this thread (0 if none).
#[unsafe(no_mangle)]
pub extern "C" fn pj_last_error_status() -> i32 {
    LAST_ERROR.with(|e| e.borrow().as_ref().map_or(0, |(s, _)| *s as i32))
}

#[unsafe(no_mangle)]
pub extern "C" fn pj_clear_error() {
    LAST_ERROR.with(|e| *e.borrow_mut() = None);
}

/// Number of live tensor handles.
#[unsafe(no_mangle)]
pub extern "C" fn pj_live_tensor_count() -> i64 {
    live_tensor_count() as i64
}

/// Creates a contiguous tensor of `dtype` (see `DType::code`) and shape `shape[0..ndim]`,
/// copying `data` (row-major, `numel * size_of(dtype)` bytes) or zero-filled if `data` is null.
///
/// # Safety
/// `shape` must point to `ndim` values; `data`, if non-null, to the bytes described; `out` must
/// be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pj_tensor_new(
    dtype: u32,
    ndim: u32,
    shape: *const i64,
    data: *const u8,
    out: *mut *mut PjTensor,
) -> i32 {
    guard(|| {
        let d = DType::from_code(dtype)
            .ok_or_else(|| RuntimeError::Value(format!("bad dtype code {dtype}")))?;
        if out.is_null() || (ndim > 0 && shape.is_null()) {
            return Err(null());
        }
        // SAFETY: caller guarantees `shape` holds `ndim` values.
        let dims: &[i64] = if ndim == 0 {
            &[]
        } else {
            unsafe { std::slice::from_raw_parts(shape, ndim as usize) }
        };
        let t = ops::zeros(dims, Some(d))?;
        if !data.is_null() {
            with_dtype!(d, T => {
                let n = t.numel();
                // SAFETY: caller guarantees `data` holds `numel` elements of `dtype`.
                let src = unsafe { std::slice::from_raw_parts(data as *const T, n) };
                let tmp = Tensor::from_vec(src.to_vec(), t.shape())?;
                t.copy_(&tmp)?;
            });
        }
        // SAFETY: `out` checked non-null; caller guarantees it is writable.
        unsafe { *out = handle_from_tensor(t) };
        Ok(())
    })
}

/// A 0-d float64/int64/bool tensor from a number (`kind`: 0 bool, 1 int, 2 float).
///
/// # Safety
/// `out` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pj_scalar_tensor(
    kind: u32,
    i: i64,
    f: f64,
    out: *mut *mut PjTensor,
) -> i32 {
    guard(|| {
        if out.is_null() {
            return Err(null());
        }
        let s = match kind {
            0 => Scalar::Bool(i != 0),
            1 => Scalar::Int(i),
            _ => Scalar::Float(f),
        };
        // SAFETY: checked non-null.
        unsafe { *out = handle_from_tensor(Tensor::scalar(s)) };
        Ok(())
    })
}

/// Adds a reference to a handle.
///
/// # Safety
/// `h` must be a live handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pj_tensor_retain(h: *mut PjTensor) {
    if !h.is_null() {
        // SAFETY: `h` came from `Arc::into_raw` and is alive.
        unsafe { Arc::increment_strong_count(h as *const PjTensor) };
    }
}

/// Drops a reference; the handle is freed when the last one goes.
///
/// # Safety
/// `h` must be a live handle; the caller gives up one reference.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pj_tensor_release(h: *mut PjTensor) {
    if !h.is_null() {
        // SAFETY: `h` came from `Arc::into_raw` and the caller owns one reference.
        unsafe { Arc::decrement_strong_count(h as *const PjTensor) };
    }
}

/// Fills `out` with the raw view of the tensor. The pointers stay valid while the handle lives.
///
/// # Safety
/// `h` must be a live handle and `out` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pj_tensor_view(h: *const PjTensor, out: *mut RawView) -> i32 {
    guard(|| {
        // SAFETY: the caller guarantees `h` is live; the view's shape/strides pointers point into
        // the tensor held by the handle, so they live as long as it does.
        let p = unsafe { h.as_ref() }.ok_or_else(null)?;
        if out.is_null() {
            return Err(null());
        }
        // SAFETY: checked non-null.
        unsafe { *out = p.tensor.raw_view() };
        Ok(())
    })
}

/// Whether a fused group whose tensor inputs are the `n` handles at `handles` runs unfused
/// for its size ([`ops::fused::small_group`]): 1 if so, 0 if not. Native code tests it before a
/// group's host call and runs a small group as the unfused ops instead (docs/fusion.md).
///
/// # Safety
/// `handles` must point to `n` live handles (or be null when `n` is 0).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pj_fused_group_is_small(handles: *const *const PjTensor, n: u64) -> i8 {
    let hs: &[*const PjTensor] = if n == 0 || handles.is_null() {
        &[]
    } else {
        // SAFETY: the caller guarantees `n` handles at `handles`.
        unsafe { std::slice::from_raw_parts(handles, n as usize) }
    };
    // SAFETY: the caller guarantees every handle is live (a null one counts as no tensor).
    let shapes = || {
        hs.iter()
            .filter_map(|&h| unsafe { h.as_ref() }.map(|p| p.tensor.shape()))
    };
    ops::fused::small_group(shapes) as i8
}

/// Reads the single element as a double (`item()`; errors unless numel == 1).
///
/// # Safety
/// `h` must be a live handle and `out` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pj_tensor_item_f64(h: *const PjTensor, out: *mut f64) -> i32 {
    guard(|| {
        // SAFETY: caller guarantees liveness.
        let t = unsafe { tensor_of_handle(h) }.ok_or_else(null)?;
        if out.is_null() {
            return Err(null());
        }
        let v = t.item()?.to_f64();
        // SAFETY: checked non-null.
        unsafe { *out = v };
        Ok(())
    })
}

/// A C value for [`pj_call`]: `tag` selects the field used.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct PjValue {
    /// 0 None, 1 bool (`i`), 2 int (`i`), 3 float (`f`), 4 tensor (`tensor`), 5 dtype (`i` =
    /// dtype code), 6 int list (`ints`, `len`), 7 tensor list (`tensors`, `len`).
    pub tag: u32,
    pub i: i64,
    pub f: f64,
    pub tensor: *mut PjTensor,
    pub ints: *const i64,
    pub tensors: *const *mut PjTensor,
    pub len: u64,
}

impl PjValue {
    fn none() -> PjValue {
        PjValue {
            tag: 0,
            i: 0,
            f: 0.0,
            tensor: std::ptr::null_mut(),
            ints: std::ptr::null(),
            tensors: std::ptr::null(),
            len: 0,
        }
    }
}

/// # Safety
/// The pointers in `v` must be valid for its tag.
unsafe fn value_from_c(v: &PjValue) -> Result<Value, RuntimeError> {
    Ok(match v.tag {
        0 => Value::None,
        1 => Value::Bool(v.i != 0),
        2 => Value::Int(v.i),
        3 => Value::Float(v.f),
        // SAFETY: caller guarantees the handle is live.
        4 => Value::Tensor(unsafe { tensor_of_handle(v.tensor) }.ok_or_else(null)?),
        5 => Value::DType(
            DType::from_code(v.i as u32)
                .ok_or_else(|| RuntimeError::Value("bad dtype code".into()))?,
        ),
        6 => {
            if v.len > 0 && v.ints.is_null() {
                return Err(null());
            }
            let s: &[i64] = if v.len == 0 {
                &[]
            } else {
                // SAFETY: caller guarantees `ints` holds `len` values.
                unsafe { std::slice::from_raw_parts(v.ints, v.len as usize) }
            };
            Value::IntList(s.to_vec())
        }
        7 => {
            if v.len > 0 && v.tensors.is_null() {
                return Err(null());
            }
            let hs: &[*mut PjTensor] = if v.len == 0 {
                &[]
            } else {
                // SAFETY: caller guarantees `tensors` holds `len` live handles.
                unsafe { std::slice::from_raw_parts(v.tensors, v.len as usize) }
            };
            Value::TensorList(
                hs.iter()
                    // SAFETY: as above.
                    .map(|&h| unsafe { tensor_of_handle(h) }.ok_or_else(null))
                    .collect::<Result<_, _>>()?,
            )
        }
        t => return Err(RuntimeError::Value(format!("bad value tag {t}"))),
    })
}

/// Calls op `op` (an `OpId`) with `nargs` arguments in schema order (defaults filled in). Writes
/// up to `cap` results; tensor results are new handles owned by the caller; a `Tensor[]` result
/// becomes one result per tensor. `*nresults` receives the number written.
///
/// # Safety
/// `args` must hold `nargs` valid values; `results` room for `cap` values; `nresults` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pj_call(
    op: u32,
    args: *const PjValue,
    nargs: u32,
    results: *mut PjValue,
    cap: u32,
    nresults: *mut u32,
) -> i32 {
    guard(|| {
        if (nargs > 0 && args.is_null()) || results.is_null() || nresults.is_null() {
            return Err(null());
        }
        if op as usize >= schema::all().count() {
            return Err(RuntimeError::Value(format!("unknown op id {op}")));
        }
        let cargs: &[PjValue] = if nargs == 0 {
            &[]
        } else {
            // SAFETY: caller guarantees `args` holds `nargs` values.
            unsafe { std::slice::from_raw_parts(args, nargs as usize) }
        };
        let vals = cargs
            .iter()
            // SAFETY: caller guarantees pointer validity per tag.
            .map(|v| unsafe { value_from_c(v) })
            .collect::<Result<Vec<_>, _>>()?;
        let out = crate::dispatch::call(OpId(op as u16), &vals)?;
        let mut flat = Vec::new();
        for v in out {
            match v {
                Value::TensorList(ts) => flat.extend(ts.into_iter().map(Value::Tensor)),
                other => flat.push(other),
            }
        }
        if flat.len() > cap as usize {
            return Err(RuntimeError::Value(format!(
                "result buffer too small: {} results, capacity {cap}",
                flat.len()
            )));
        }
        for (i, v) in flat.iter().enumerate() {
            let mut c = PjValue::none();
            match v {
                Value::None => {}
                Value::Bool(b) => {
                    c.tag = 1;
                    c.i = *b as i64
                }
                Value::Int(x) => {
                    c.tag = 2;
                    c.i = *x
                }
                Value::Float(f) => {
                    c.tag = 3;
                    c.f = *f
                }
                Value::Tensor(t) => {
                    c.tag = 4;
                    c.tensor = handle_from_tensor(t.clone())
                }
                Value::DType(d) => {
                    c.tag = 5;
                    c.i = d.code() as i64
                }
                other => {
                    return Err(RuntimeError::Value(format!(
                        "result of type {} cannot cross the C ABI",
                        other.type_name()
                    )));
                }
            }
            // SAFETY: `results` has room for `cap` values and `i < cap`.
            unsafe { *results.add(i) = c };
        }
        // SAFETY: checked non-null.
        unsafe { *nresults = flat.len() as u32 };
        Ok(())
    })
}

/// Validates a raw view and copies its elements into a fresh tensor.
///
/// # Safety
/// `v` must describe valid readable memory.
unsafe fn tensor_from_view(v: &RawView) -> Result<Tensor, RuntimeError> {
    let d =
        DType::from_code(v.dtype).ok_or_else(|| RuntimeError::Value("bad dtype code".into()))?;
    let (shape, strides) = unsafe { dims_of(v)? };
    with_dtype!(d, T => {
        let numel: usize = shape.iter().product();
        if numel == 0 {
            return Tensor::zeros(&shape, d);
        }
        if v.data.is_null() {
            return Err(null());
        }
        // SAFETY: the caller guarantees that every element addressed by (shape, strides) from
        // `data` is readable memory of `T`.
        let view = unsafe { ArrayViewD::<T>::from_shape_ptr(IxDyn(&shape).strides(IxDyn(&strides)), v.data as *const T) };
        Ok(Tensor::from_array(view.to_owned()))
    })
}

/// # Safety
/// `v.shape`/`v.strides` must point to `v.ndim` values each.
unsafe fn dims_of(v: &RawView) -> Result<(Vec<usize>, Vec<usize>), RuntimeError> {
    if v.ndim > 64 {
        return Err(RuntimeError::Value("rank too large".into()));
    }
    if v.ndim > 0 && (v.shape.is_null() || v.strides.is_null()) {
        return Err(null());
    }
    let n = v.ndim as usize;
    let (sh, st): (&[i64], &[i64]) = if n == 0 {
        (&[], &[])
    } else {
        // SAFETY: caller guarantees `n` values each.
        unsafe {
            (
                std::slice::from_raw_parts(v.shape, n),
                std::slice::from_raw_parts(v.strides, n),
            )
        }
    };
    if sh.iter().chain(st).any(|&x| x < 0) {
        return Err(RuntimeError::Value(
            "negative size or stride in raw view".into(),
        ));
    }
    Ok((
        sh.iter().map(|&x| x as usize).collect(),
        st.iter().map(|&x| x as usize).collect(),
    ))
}

/// Writes tensor `r` (converted) into the memory described by `out`.
///
/// # Safety
/// `out` must describe valid writable memory with no two indices aliasing.
unsafe fn write_to_view(r: &Tensor, out: &RawView) -> Result<(), RuntimeError> {
    let d =
        DType::from_code(out.dtype).ok_or_else(|| RuntimeError::Value("bad dtype code".into()))?;
    let (shape, strides) = unsafe { dims_of(out)? };
    crate::tensor::check_alloc(&shape, d)?;
    let src = r.broadcast_to(&shape)?;
    with_dtype!(d, T => {
        let data = src.to_array::<T>();
        if data.is_empty() {
            return Ok(());
        }
        if out.data.is_null() {
            return Err(null());
        }
        // SAFETY: the caller guarantees the view is valid, writable and non-aliasing.
        let mut dst = unsafe { ArrayViewMutD::<T>::from_shape_ptr(IxDyn(&shape).strides(IxDyn(&strides)), out.data as *mut T) };
        dst.assign(&data);
    });
    Ok(())
}

fn binary_op_of_code(code: u32) -> Option<BinaryOp> {
    use BinaryOp::*;
    Some(match code {
        0 => Add,
        1 => Sub,
        2 => Mul,
        3 => Div,
        4 => DivFloor,
        5 => Remainder,
        6 => Pow,
        7 => Maximum,
        8 => Minimum,
        9 => Cmp(CmpOp::Eq),
        10 => Cmp(CmpOp::Ne),
        11 => Cmp(CmpOp::Lt),
        12 => Cmp(CmpOp::Le),
        13 => Cmp(CmpOp::Gt),
        14 => Cmp(CmpOp::Ge),
        15 => Atan2,
        16 => BitAnd,
        17 => BitOr,
        18 => BitXor,
        _ => return None,
    })
}

/// `out = a <op> b` on raw views with PyTorch's broadcasting and promotion; the result is
/// converted to `out`'s dtype (which must be able to hold it, as for in-place ops). `op` codes are
/// listed in docs/abi.md.
///
/// # Safety
/// The views must describe valid memory; `out` must be writable and must not alias `a` or `b`
/// unless it is the exact same view.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pj_binary_views(
    op: u32,
    a: *const RawView,
    b: *const RawView,
    out: *const RawView,
) -> i32 {
    guard(|| {
        let bop = binary_op_of_code(op)
            .ok_or_else(|| RuntimeError::Value(format!("bad binary op code {op}")))?;
        // SAFETY: caller guarantees valid views.
        let (a, b, out) = unsafe {
            (
                a.as_ref().ok_or_else(null)?,
                b.as_ref().ok_or_else(null)?,
                out.as_ref().ok_or_else(null)?,
            )
        };
        // SAFETY: as above; inputs are copied before the output is written.
        let (x, y) = unsafe { (tensor_from_view(a)?, tensor_from_view(b)?) };
        let r = ops::binary(bop, Input::T(&x), Input::T(&y))?;
        let od = DType::from_code(out.dtype)
            .ok_or_else(|| RuntimeError::Value("bad dtype code".into()))?;
        if !DType::can_cast(r.dtype(), od) {
            return Err(RuntimeError::DType(format!(
                "result type {} can't be cast to the desired output type {}",
                r.dtype().scalar_type_name(),
                od.scalar_type_name()
            )));
        }
        // SAFETY: caller guarantees `out` is writable.
        unsafe { write_to_view(&r, out) }
    })
}

/// Reads element type `T` from a raw view's first element (test helper for native callers).
#[doc(hidden)]
pub fn first_element<T: Element>(v: &RawView) -> Option<T> {
    if v.data.is_null() || DType::from_code(v.dtype) != Some(T::DTYPE) {
        return None;
    }
    // SAFETY: a non-null view produced by this runtime points at a live element of type `T`.
    Some(unsafe { *(v.data as *const T) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_views_calls_and_errors() {
        let start = live_tensor_count();
        let mut h: *mut PjTensor = std::ptr::null_mut();
        let shape = [2i64, 2];
        let data = [1.0f32, 2.0, 3.0, 4.0];
        // SAFETY: valid pointers.
        unsafe {
            assert_eq!(
                pj_tensor_new(3, 2, shape.as_ptr(), data.as_ptr() as *const u8, &mut h),
                0
            );
            assert_eq!(live_tensor_count(), start + 1);
            let mut v = std::mem::zeroed::<RawView>();
            assert_eq!(pj_tensor_view(h, &mut v), 0);
            assert_eq!(first_element::<f32>(&v), Some(1.0));
            // out = v + v written in place through the raw view (aliasing the same view is allowed).
            assert_eq!(pj_binary_views(0, &v, &v, &v), 0);
            let t = tensor_of_handle(h).unwrap();
            assert_eq!(t.to_vec::<f32>(), vec![2.0, 4.0, 6.0, 8.0]);
            // call sum through the generic entry point
            let id = schema::lookup("sum").unwrap().0 as u32;
            let mut a0 = PjValue::none();
            a0.tag = 4;
            a0.tensor = h;
            let args = [a0, PjValue::none()];
            let mut res = [PjValue::none(); 2];
            let mut n = 0u32;
            assert_eq!(
                pj_call(id, args.as_ptr(), 2, res.as_mut_ptr(), 2, &mut n),
                0
            );
            assert_eq!(n, 1);
            let mut x = 0.0;
            assert_eq!(pj_tensor_item_f64(res[0].tensor, &mut x), 0);
            assert_eq!(x, 20.0);
            // an error: item() of a 4-element tensor
            let st = pj_tensor_item_f64(h, &mut x);
            assert_eq!(st, PjStatus::ItemNotScalar as i32);
            let msg = std::ffi::CStr::from_ptr(pj_last_error_message())
                .to_str()
                .unwrap();
            assert_eq!(
                msg,
                "a Tensor with 4 elements cannot be converted to Scalar"
            );
            pj_tensor_retain(h);
            pj_tensor_release(h);
            assert_eq!(live_tensor_count(), start + 2);
            pj_tensor_release(res[0].tensor);
            pj_tensor_release(h);
        }
        assert_eq!(live_tensor_count(), start);
    }
}
