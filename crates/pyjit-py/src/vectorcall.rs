//! The vectorcall protocol (PEP 590) for `pyjit.Function`.
//!
//! PyO3 (0.30) implements `__call__` as the type's `tp_call` slot, so every call of a compiled
//! function made CPython pack the arguments into a new tuple (and free it after), went through
//! PyO3's argument extraction (which slices that tuple again) and only then reached our code:
//! about a quarter of the instructions of calling a compiled `ident(n: int) -> int` (callgrind).
//! A type that sets `tp_vectorcall_offset` and `Py_TPFLAGS_HAVE_VECTORCALL` is instead called
//! with a pointer to the arguments where they already are (PyO3 issue #4252 asks for this).
//!
//! PyO3 builds the type, so the two fields are set on it afterwards ([`enable`], on the first
//! `Function` made), and each `Function` holds the function pointer ([`VectorcallFn`]) at the
//! offset given. Under the stable ABI (abi3) `PyTypeObject` is opaque, so its leading fields are
//! declared here ([`TypeHead`]: the same in every CPython from 3.8 to 3.14 without
//! `Py_TRACE_REFS`, which abi3 modules cannot load into); before writing, [`enable`] checks the
//! declaration against what the type reports through the stable API (its flags, `tp_call`,
//! `tp_dealloc`, its name) and leaves the type alone if anything differs: calls then take
//! `tp_call` as before. `tp_call` stays set either way (PEP 590 requires it; `type(f).__call__`
//! uses it), and both end in the same code ([`crate::PyFunction`]'s call paths).

use pyo3::ffi;
use std::ffi::{CStr, c_void};
use std::os::raw::{c_char, c_ulong};
use std::sync::Once;

/// `vectorcallfunc`: `(callable, args, nargsf, kwnames) -> result`.
pub(crate) type VectorcallFn = unsafe extern "C" fn(
    *mut ffi::PyObject,
    *const *mut ffi::PyObject,
    usize,
    *mut ffi::PyObject,
) -> *mut ffi::PyObject;

/// `Py_TPFLAGS_HAVE_VECTORCALL` (the same bit since 3.8; in the limited API since 3.12).
const HAVE_VECTORCALL: c_ulong = 1 << 11;

/// `PY_VECTORCALL_ARGUMENTS_OFFSET`: a flag in `nargsf`, not part of the count.
pub(crate) const ARGUMENTS_OFFSET: usize = 1 << (usize::BITS - 1);

/// The leading fields of CPython's `PyTypeObject`, up to `tp_flags`.
#[repr(C)]
struct TypeHead {
    ob_refcnt: isize,
    ob_type: *mut c_void,
    ob_size: isize,
    tp_name: *const c_char,
    tp_basicsize: isize,
    tp_itemsize: isize,
    tp_dealloc: *mut c_void,
    tp_vectorcall_offset: isize,
    tp_getattr: *mut c_void,
    tp_setattr: *mut c_void,
    tp_as_async: *mut c_void,
    tp_repr: *mut c_void,
    tp_as_number: *mut c_void,
    tp_as_sequence: *mut c_void,
    tp_as_mapping: *mut c_void,
    tp_hash: *mut c_void,
    tp_call: *mut c_void,
    tp_str: *mut c_void,
    tp_getattro: *mut c_void,
    tp_setattro: *mut c_void,
    tp_as_buffer: *mut c_void,
    tp_flags: c_ulong,
}

/// Whether calls of objects of type `tp` take their [`VectorcallFn`] (set by [`enable`]).
pub(crate) fn enabled(tp: *mut ffi::PyTypeObject) -> bool {
    // SAFETY: `tp` is a live type object (the caller's); PyType_GetFlags is in the stable ABI.
    unsafe { ffi::PyType_GetFlags(tp) & HAVE_VECTORCALL != 0 }
}

/// Makes calls of `obj`'s type (PyO3's `pyjit.Function`) take the function pointer stored
/// `field` bytes into each object, once per process; any object of the type must hold it
/// there. Does nothing when the type's layout is not the declared one (see the module docs).
///
/// # Safety
/// The GIL is held; `obj` is a live object of the type, and `field` points into it at a
/// [`VectorcallFn`] that every object of the type has at the same offset.
pub(crate) unsafe fn enable(obj: *mut ffi::PyObject, field: *const VectorcallFn) {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let offset = field as isize - obj as isize;
        // SAFETY: forwarded; `Py_TYPE` of a live object is its live type.
        unsafe {
            let tp = ffi::Py_TYPE(obj);
            let head = tp.cast::<TypeHead>();
            let declared_layout = (*head).tp_flags == ffi::PyType_GetFlags(tp)
                && (*head).tp_call == ffi::PyType_GetSlot(tp, ffi::Py_tp_call)
                && (*head).tp_dealloc == ffi::PyType_GetSlot(tp, ffi::Py_tp_dealloc)
                && !(*head).tp_name.is_null()
                && CStr::from_ptr((*head).tp_name) == c"pyjit.Function"
                && (*head).tp_vectorcall_offset == 0
                && offset > 0
                && offset % std::mem::align_of::<VectorcallFn>() as isize == 0
                && offset + std::mem::size_of::<VectorcallFn>() as isize <= (*head).tp_basicsize;
            if declared_layout {
                (*head).tp_vectorcall_offset = offset;
                (*head).tp_flags |= HAVE_VECTORCALL;
            }
        }
    });
}
