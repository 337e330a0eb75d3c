//! `pyjit._pyjit`: the extension module behind the `pyjit` Python package.
//!
//! A thin layer over [`pyjit::api`]: Python values in and out, one Python exception per
//! [`Error`], and the GIL released while compiled code runs. The Python half
//! (`python/pyjit/__init__.py`) finds a function's source (and the module-level functions,
//! constants and imports it uses) and calls [`script`] / [`trace`] here.
//!
//! Arrays: a returned tensor becomes a NumPy array whose data *is* the runtime's buffer (its
//! `base` is a `RuntimeBuffer` that keeps the buffer alive) — no copy, any strides. A NumPy
//! argument of dtype float32/float64/int32/int64/bool becomes a runtime tensor viewing the
//! array's memory (no copy; see [`tensor_from_numpy`] for the arrays that are copied); torch CPU
//! tensors go through `Tensor.numpy()` (shared memory) the same way, and a call with a torch
//! argument returns torch tensors (`torch.from_numpy`, shared memory).

use numpy::npyffi::{self, NPY_ARRAY_WRITEABLE, PY_ARRAY_API, npy_intp};
use numpy::{PyArrayDescrMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyjit::api::{
    CompileOptions, Error, Function, SCALAR_CALL_SLOTS, ScalarArg, Source, TraceConfig, Value,
};
use pyjit::runtime::{DType, Tensor};
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple, PyType};
use smallvec::SmallVec;
use std::os::raw::c_int;
use std::sync::OnceLock;
use vectorcall::VectorcallFn;

mod vectorcall;

create_exception!(
    pyjit,
    CompileError,
    PyRuntimeError,
    "The function does not compile. `str(e)` is every diagnostic, rendered with file:line:col, the source line and a caret; `e.diagnostics` lists them one by one."
);
create_exception!(
    pyjit,
    TracingCheckError,
    PyException,
    "`check_inputs` traced a different graph than the example inputs (as torch.jit.trace's TracingCheckError)."
);

create_exception!(
    pyjit,
    ArchiveError,
    pyo3::exceptions::PyValueError,
    "A saved program could not be loaded: corrupt, truncated, another format version, or altered."
);

/// A compiled function: call it like the Python function it was made from.
#[pyclass(frozen, module = "pyjit", name = "Function")]
struct PyFunction {
    f: Function,
    /// What calls of it run ([`vectorcall`]): always [`function_vectorcall`].
    vectorcall: VectorcallFn,
    /// The same function compiled as NumPy-style code (parameters typed by the call's
    /// arguments), for the calls that pass Python scalars where `f`, TorchScript, takes
    /// Tensors: `pyjit.script` sets it for a function without annotations in a module that
    /// imports NumPy and not torch (`def add1(n): return n + 1`), so such calls run as Numba and
    /// `pyjit run` run them, and every call `f` accepts keeps its TorchScript meaning.
    numpy_style: OnceLock<Py<PyFunction>>,
}

/// Keeps a runtime tensor's buffer alive for the NumPy arrays that view it (their `base`).
#[pyclass(frozen, module = "pyjit")]
struct RuntimeBuffer {
    tensor: Tensor,
}

#[pymethods]
impl RuntimeBuffer {
    /// The address of the runtime buffer's first viewed element (for tests of zero-copy).
    #[getter]
    fn data_ptr(&self) -> usize {
        self.tensor.raw_view().data as usize
    }

    fn __repr__(&self) -> String {
        format!(
            "RuntimeBuffer(dtype={}, shape={:?})",
            self.tensor.dtype().name(),
            self.tensor.shape()
        )
    }
}

/// The vectorcall entry of every `pyjit.Function` ([`vectorcall`]): [`PyFunction::call_vector`]
/// with PyO3's conventions at the boundary (a Rust panic becomes `PanicException`).
///
/// # Safety
/// Called by CPython by the vectorcall protocol: the GIL is held, `callable` is a live
/// `pyjit.Function`, `args` holds the positional arguments then the keywords' values, and
/// `kwnames` is null or a tuple of the keywords' names.
unsafe extern "C" fn function_vectorcall(
    callable: *mut pyo3::ffi::PyObject,
    args: *const *mut pyo3::ffi::PyObject,
    nargsf: usize,
    kwnames: *mut pyo3::ffi::PyObject,
) -> *mut pyo3::ffi::PyObject {
    // SAFETY: the GIL is held for the whole call (the protocol's contract).
    let py = unsafe { Python::assume_attached() };
    let run = || {
        // SAFETY: as documented above; `cast_unchecked`: `callable` is a `pyjit.Function` and
        // `kwnames` a tuple.
        unsafe {
            let nargs = nargsf & !vectorcall::ARGUMENTS_OFFSET;
            let kwnames = Borrowed::from_ptr_or_opt(py, kwnames).map(|k| k.cast_unchecked());
            let total = nargs + kwnames.map_or(0, |k: Borrowed<'_, '_, PyTuple>| k.len());
            let args = if total == 0 {
                &[][..]
            } else {
                std::slice::from_raw_parts(args, total)
            };
            let f = Borrowed::from_ptr(py, callable).cast_unchecked::<PyFunction>();
            f.get().call_vector(py, args, nargs, kwnames)
        }
    };
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)) {
        Ok(Ok(v)) => v.into_ptr(),
        Ok(Err(e)) => {
            e.restore(py);
            std::ptr::null_mut()
        }
        Err(payload) => {
            let msg = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "panic in pyjit".to_string());
            pyo3::panic::PanicException::new_err(msg).restore(py);
            std::ptr::null_mut()
        }
    }
}

/// Whether a call passes a Python `int`, `float` or `bool` (positionally or by keyword): the
/// calls a TorchScript function's NumPy-style version takes when the TorchScript one rejects
/// its arguments ([`PyFunction::numpy_style`]).
fn passes_python_scalars(args: &Bound<'_, PyTuple>, kwargs: Option<&Bound<'_, PyDict>>) -> bool {
    let scalar = |v: &Bound<'_, PyAny>| {
        v.is_instance_of::<PyBool>() || v.is_instance_of::<PyInt>() || v.is_instance_of::<PyFloat>()
    };
    args.iter().any(|v| scalar(&v)) || kwargs.is_some_and(|k| k.values().iter().any(|v| scalar(&v)))
}

/// Whether a call's arguments included torch tensors (then results are torch tensors).
#[derive(Default)]
struct Spelling {
    torch: bool,
}

/// What [`Function::inspect_ir`] and [`Function::inspect_asm`] are.
type InspectFn = fn(&Function, Vec<Value>, Vec<(String, Value)>) -> Result<String, Error>;

impl PyFunction {
    /// A `Function` object, its calls taking [`function_vectorcall`].
    fn new_object(py: Python<'_>, f: Function) -> PyResult<Py<PyFunction>> {
        let obj = Py::new(
            py,
            PyFunction {
                f,
                vectorcall: function_vectorcall,
                numpy_style: OnceLock::new(),
            },
        )?;
        // SAFETY: the GIL is held, `obj` is a live `pyjit.Function`, and every one holds its
        // `vectorcall` field at the same offset.
        unsafe { vectorcall::enable(obj.as_ptr(), &obj.get().vectorcall) };
        Ok(obj)
    }

    /// The per-call path of positional arguments `args` (`n` of them) that are all scalars,
    /// when the function's fast path takes them; `None` otherwise (nothing done).
    #[inline]
    fn call_scalars<'a, 'py: 'a>(
        &self,
        py: Python<'py>,
        n: usize,
        args: impl Iterator<Item = Borrowed<'a, 'py, PyAny>>,
    ) -> Option<PyResult<Py<PyAny>>> {
        let mut buf = [ScalarArg::Int(0); SCALAR_CALL_SLOTS];
        let scalars = scalar_args(n, args, &mut buf)?;
        let call = match self.f.scalar_call(scalars) {
            Some(call) => call,
            None => self.numpy_style.get()?.get().f.scalar_call(scalars)?,
        };
        let mut printed = Vec::new();
        // Compiled code that takes a bounded time (no loop, call or tensor kernel) runs with
        // the GIL held, as NumPy keeps it for small operations: releasing and retaking it
        // would cost more than the call. Everything else — compiling included — runs with
        // the GIL released.
        let r = if call.runs_in_bounded_time() {
            call.run(&mut printed)
        } else {
            py.detach(|| call.run(&mut printed))
        };
        Some(finish_call(py, &printed, r, &Spelling::default()))
    }

    /// Any call: the arguments converted, bound, checked, and the call run.
    fn call_general(
        &self,
        py: Python<'_>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        let mut printed = Vec::new();
        let mut spelling = Spelling::default();
        let (values, kw_values) = convert_args(args, kwargs, &mut spelling)?;
        let run = |call: pyjit::api::Call<'_>, printed: &mut Vec<u8>| {
            if call.runs_in_bounded_time() {
                call.run(printed)
            } else {
                py.detach(|| call.run(printed))
            }
        };
        let r = match self.f.prepare(values, kw_values) {
            Ok(call) => run(call, &mut printed),
            Err(e) => Err(e),
        };
        if let (Err(Error::Argument(_)), Some(alt)) = (&r, self.numpy_style.get())
            && passes_python_scalars(args, kwargs)
        {
            // The NumPy-style version, when it takes these arguments (else the TorchScript
            // error stands: a torch-style function given a number by mistake).
            let (values, kw_values) = convert_args(args, kwargs, &mut Spelling::default())?;
            if let Ok(call) = alt.get().f.prepare(values, kw_values) {
                let r = run(call, &mut printed);
                return finish_call(py, &printed, r, &spelling);
            }
        }
        finish_call(py, &printed, r, &spelling)
    }

    /// A call by the vectorcall protocol: `args` holds the `nargs` positional arguments, then
    /// the values of the keywords named in `kwnames`.
    fn call_vector(
        &self,
        py: Python<'_>,
        args: &[*mut pyo3::ffi::PyObject],
        nargs: usize,
        kwnames: Option<Borrowed<'_, '_, PyTuple>>,
    ) -> PyResult<Py<PyAny>> {
        // SAFETY (both closures): CPython passes live argument objects, borrowed for the call.
        let arg = |p: &*mut pyo3::ffi::PyObject| unsafe { Borrowed::from_ptr(py, *p) };
        let (positional, values) = args.split_at(nargs);
        if values.is_empty()
            && let Some(r) = self.call_scalars(py, nargs, positional.iter().map(arg))
        {
            return r;
        }
        let tuple = PyTuple::new(py, positional.iter().map(arg))?;
        let kwargs = match kwnames {
            Some(names) if !values.is_empty() => {
                let d = PyDict::new(py);
                for (name, v) in names.iter_borrowed().zip(values) {
                    d.set_item(name, arg(v))?;
                }
                Some(d)
            }
            _ => None,
        };
        self.call_general(py, &tuple, kwargs.as_ref())
    }

    /// What `view` shows of a call with these arguments, computed without the GIL.
    fn inspect(
        &self,
        py: Python<'_>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
        view: InspectFn,
    ) -> PyResult<String> {
        let (args, kwargs) = convert_args(args, kwargs, &mut Spelling::default())?;
        py.detach(|| view(&self.f, args, kwargs))
            .map_err(|e| to_pyerr(py, e))
    }
}

#[pymethods]
impl PyFunction {
    /// The call through `tp_call` (`type(f).__call__(f, ...)`, or every call where
    /// [`vectorcall`] could not be enabled); [`function_vectorcall`] takes the others.
    #[pyo3(signature = (*args, **kwargs))]
    fn __call__(
        &self,
        py: Python<'_>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        if kwargs.is_none_or(|k| k.is_empty())
            && let Some(r) = self.call_scalars(py, args.len(), args.iter_borrowed())
        {
            return r;
        }
        self.call_general(py, args, kwargs)
    }

    /// Sets the NumPy-style version that takes the calls passing Python scalars where this
    /// TorchScript function takes Tensors (`PyFunction::numpy_style`; `pyjit.script` calls it
    /// once, right after compiling both).
    fn _set_numpy_style(&self, alt: Py<PyFunction>) -> PyResult<()> {
        self.numpy_style
            .set(alt)
            .map_err(|_| PyRuntimeError::new_err("the NumPy-style version is already set"))
    }

    /// The function's name.
    #[getter]
    fn __name__(&self) -> &str {
        self.f.name()
    }

    /// The generic IR: one graph for every signature (traced: every trace so far).
    #[getter]
    fn graph(&self) -> String {
        self.f.graph()
    }

    /// The signatures compiled so far, oldest first.
    #[getter]
    fn signatures(&self) -> Vec<String> {
        self.f.signatures()
    }

    /// How many of the signatures compiled so far came from the on-disk cache (`cache=True`).
    #[getter]
    fn cache_hits(&self) -> usize {
        self.f.cache_hits()
    }

    /// Whether the function was traced (`pyjit.trace`) rather than scripted.
    #[getter]
    fn traced(&self) -> bool {
        self.f.is_traced()
    }

    /// TracerWarnings of the traces recorded so far.
    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.f.warnings()
    }

    /// The IR a call with these arguments runs: specialized for their signature and optimized.
    #[pyo3(signature = (*args, **kwargs))]
    fn inspect_ir(
        &self,
        py: Python<'_>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<String> {
        self.inspect(py, args, kwargs, Function::inspect_ir)
    }

    /// The machine code of a call with these arguments.
    #[pyo3(signature = (*args, **kwargs))]
    fn inspect_asm(
        &self,
        py: Python<'_>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<String> {
        self.inspect(py, args, kwargs, Function::inspect_asm)
    }

    /// The function as `.pyjit` archive bytes (`pyjit.save`).
    fn save_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyBytes>> {
        let b = self.f.save().map_err(|e| to_pyerr(py, e))?;
        Ok(pyo3::types::PyBytes::new(py, &b))
    }

    fn __repr__(&self) -> String {
        let how = if self.f.is_traced() {
            "traced"
        } else {
            "scripted"
        };
        format!("<pyjit.Function {} ({how})>", self.f.name())
    }
}

type Args = (Vec<Value>, Vec<(String, Value)>);

fn convert_args(
    args: &Bound<'_, PyTuple>,
    kwargs: Option<&Bound<'_, PyDict>>,
    spelling: &mut Spelling,
) -> PyResult<Args> {
    let mut a = Vec::with_capacity(args.len());
    for x in args.iter() {
        a.push(to_value(&x, spelling)?);
    }
    let mut kw = Vec::new();
    if let Some(d) = kwargs {
        for (k, v) in d.iter() {
            kw.push((k.extract::<String>()?, to_value(&v, spelling)?));
        }
    }
    Ok((a, kw))
}

/// The positional arguments as scalars in `buf`, when each is exactly a Python `int` that fits
/// 64 bits, a `float` or a `bool`, and they fit; else `None` (the general path converts them,
/// and raises for an `int` too large).
#[inline]
fn scalar_args<'a, 'py: 'a, 'b>(
    n: usize,
    args: impl Iterator<Item = Borrowed<'a, 'py, PyAny>>,
    buf: &'b mut [ScalarArg; SCALAR_CALL_SLOTS],
) -> Option<&'b [ScalarArg]> {
    if n > SCALAR_CALL_SLOTS {
        return None;
    }
    for (s, x) in buf.iter_mut().zip(args) {
        *s = if x.is_exact_instance_of::<PyInt>() {
            ScalarArg::Int(x.extract::<i64>().ok()?)
        } else if let Ok(f) = x.cast_exact::<PyFloat>() {
            ScalarArg::Float(f.value())
        } else if let Ok(b) = x.cast_exact::<PyBool>() {
            ScalarArg::Bool(b.is_true())
        } else {
            return None;
        };
    }
    Some(&buf[..n])
}

/// The end of a call: what it printed written to `sys.stdout`, then its result as a Python
/// value or its error as the Python exception.
#[inline]
fn finish_call(
    py: Python<'_>,
    printed: &[u8],
    r: Result<Value, Error>,
    spelling: &Spelling,
) -> PyResult<Py<PyAny>> {
    // A number with nothing printed (the per-call paths' common end) inline; the rest through
    // the general conversion.
    match &r {
        Ok(Value::Int(i)) if printed.is_empty() => {
            return Ok(i.into_pyobject(py)?.into_any().unbind());
        }
        Ok(Value::Float(x)) if printed.is_empty() => {
            return Ok(PyFloat::new(py, *x).into_any().unbind());
        }
        _ => {}
    }
    write_stdout(py, printed)?;
    match r {
        Ok(v) => to_py(py, v, spelling),
        Err(e) => Err(to_pyerr(py, e)),
    }
}

/// A Python value as an API value.
fn to_value(obj: &Bound<'_, PyAny>, spelling: &mut Spelling) -> PyResult<Value> {
    if obj.is_none() {
        return Ok(Value::None);
    }
    // bool before int: Python's bool is an int.
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if obj.is_instance_of::<PyInt>() {
        return obj.extract::<i64>().map(Value::Int).map_err(|_| {
            PyRuntimeError::new_err(format!(
                "Overflow when unpacking long: {} does not fit a 64-bit int",
                obj.str().map(|s| s.to_string()).unwrap_or_default()
            ))
        });
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        return Ok(Value::Float(f.value()));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Value::Str(s.extract::<String>()?));
    }
    if let Ok(arr) = obj.cast::<PyUntypedArray>() {
        return tensor_from_numpy(arr).map(Value::Tensor);
    }
    if let Ok(l) = obj.cast::<PyList>() {
        let mut items = Vec::with_capacity(l.len());
        for x in l.iter() {
            items.push(to_value(&x, spelling)?);
        }
        return Ok(Value::List(items));
    }
    if let Ok(t) = obj.cast::<PyTuple>() {
        let mut items = Vec::with_capacity(t.len());
        for x in t.iter() {
            items.push(to_value(&x, spelling)?);
        }
        return Ok(Value::Tuple(items));
    }
    let ty = obj.get_type();
    let module: String = ty
        .getattr("__module__")
        .and_then(|m| m.extract())
        .unwrap_or_default();
    let tyname = ty.name().map(|n| n.to_string()).unwrap_or_default();
    if module == "torch" && tyname == "dtype" {
        let s = obj.str()?.to_string();
        return DType::from_name(&s)
            .map(Value::DType)
            .ok_or_else(|| PyTypeError::new_err(format!("pyjit does not support the dtype {s}")));
    }
    if module.starts_with("torch") && obj.hasattr("__torch_function__")? {
        // A torch tensor (or Parameter): its CPU data as a NumPy array sharing the memory.
        let device: String = obj.getattr("device")?.getattr("type")?.extract()?;
        if device != "cpu" {
            return Err(PyTypeError::new_err(format!(
                "pyjit runs on the CPU; move the tensor there first (.cpu()); it is on `{device}`"
            )));
        }
        spelling.torch = true;
        let arr = obj.call_method0("detach")?.call_method0("numpy")?;
        return tensor_from_numpy(arr.cast::<PyUntypedArray>()?).map(Value::Tensor);
    }
    if module == "numpy" && (tyname == "dtype" || tyname.starts_with("dtype[")) {
        let s = obj.str()?.to_string();
        return DType::from_name(&s)
            .map(Value::DType)
            .ok_or_else(|| PyTypeError::new_err(format!("pyjit does not support the dtype {s}")));
    }
    if module == "numpy" && obj.hasattr("item")? && obj.hasattr("dtype")? {
        // A NumPy scalar (np.float32(1.5), np.int64(3)): its Python value.
        return to_value(&obj.call_method0("item")?, spelling);
    }
    Err(PyTypeError::new_err(format!(
        "pyjit cannot pass a value of type `{module}.{tyname}`: it takes NumPy arrays, torch CPU tensors, int, float, bool, str, None, dtypes, and lists and tuples of them"
    )))
}

/// The runtime dtype of a NumPy dtype (native byte order only), if it has one.
fn runtime_dtype(dt: &Bound<'_, numpy::PyArrayDescr>) -> Option<DType> {
    // Read from the descriptor's fields (kind, size, byte order): no dtype objects are made on
    // the per-call path. A non-native byte order is not a runtime dtype (the caller converts).
    if dt.is_native_byteorder() == Some(false) || dt.has_fields() || dt.has_subarray() {
        return None;
    }
    match (dt.kind(), dt.itemsize()) {
        (b'f', 4) => Some(DType::Float32),
        (b'f', 8) => Some(DType::Float64),
        (b'i', 8) => Some(DType::Int64),
        (b'i', 4) => Some(DType::Int32),
        (b'b', 1) => Some(DType::Bool),
        _ => None,
    }
}

/// A NumPy array as a runtime tensor that views the array's memory (no copy): in-place ops
/// write into the array, as PyTorch's would into a tensor. Arrays the runtime cannot view —
/// misaligned, read-only, with negative strides, non-native byte order, a bool array holding
/// bytes other than 0 and 1 — are copied first (`ascontiguousarray`), and the copy is viewed.
fn tensor_from_numpy(arr: &Bound<'_, PyUntypedArray>) -> PyResult<Tensor> {
    let py = arr.py();
    let descr = arr.dtype();
    let Some(dtype) = runtime_dtype(&descr) else {
        let native = descr.call_method1("newbyteorder", ("=",))?;
        if let Some(dt) = runtime_dtype(native.cast::<numpy::PyArrayDescr>()?) {
            // Same kind, other byte order: a native copy.
            let copy = py
                .import("numpy")?
                .getattr("ascontiguousarray")?
                .call1((arr, native))?;
            return view_numpy(copy.cast::<PyUntypedArray>()?, dt)?
                .ok_or_else(|| PyRuntimeError::new_err("cannot view a fresh NumPy array"));
        }
        return Err(PyTypeError::new_err(format!(
            "pyjit tensors are float32, float64, int32, int64 or bool; this array is {} (convert it with .astype(...))",
            descr.str()?
        )));
    };
    if let Some(t) = view_numpy(arr, dtype)? {
        return Ok(t);
    }
    if arr.len() == 0 {
        // No elements to share.
        return Tensor::zeros(arr.shape(), dtype)
            .map_err(|e| PyRuntimeError::new_err(e.to_string()));
    }
    let np = py.import("numpy")?;
    let copy = if dtype == DType::Bool {
        // Any non-zero byte is True, as NumPy reads it.
        np.getattr("not_equal")?
            .call1((arr.call_method1("view", ("u1",))?, 0))?
    } else {
        np.getattr("array")?.call1((arr,))?
    };
    view_numpy(copy.cast::<PyUntypedArray>()?, dtype)?
        .ok_or_else(|| PyRuntimeError::new_err("cannot view a fresh NumPy array"))
}

/// A tensor viewing `arr`'s memory, or `None` when the runtime cannot view it as it is.
fn view_numpy(arr: &Bound<'_, PyUntypedArray>, dtype: DType) -> PyResult<Option<Tensor>> {
    let raw = arr.as_array_ptr();
    // SAFETY: `raw` is the live array object `arr` holds.
    let (data, flags) = unsafe { ((*raw).fields.data as *mut u8, (*raw).fields.flags) };
    let elem = dtype.size_of() as isize;
    let behaved = flags & npyffi::NPY_ARRAY_ALIGNED != 0 && flags & NPY_ARRAY_WRITEABLE != 0;
    let shape = arr.shape();
    let numel: usize = shape.iter().product();
    if !behaved || numel == 0 || arr.strides().iter().any(|&s| s < 0 || s % elem != 0) {
        return Ok(None);
    }
    let strides: SmallVec<[usize; 8]> =
        arr.strides().iter().map(|&s| (s / elem) as usize).collect();
    let len = 1 + shape
        .iter()
        .zip(&strides)
        .map(|(&d, &s)| (d - 1) * s)
        .sum::<usize>();
    if dtype == DType::Bool {
        if !arr.is_c_contiguous() {
            return Ok(None);
        }
        // SAFETY: a C-contiguous array of `numel` one-byte elements at `data`.
        let bytes = unsafe { std::slice::from_raw_parts(data as *const u8, numel) };
        if bytes.iter().any(|&b| b > 1) {
            return Ok(None);
        }
    }
    let owner: Box<dyn std::any::Any + Send + Sync> = Box::new(arr.clone().into_any().unbind());
    // SAFETY: NumPy guarantees `data` addresses every element the (non-negative, element-sized)
    // strides reach, i.e. `len` elements of this dtype, aligned (checked) and writable
    // (checked); `owner` holds a reference to the array, which keeps the memory alive and
    // never reallocates it; bool bytes are 0 or 1 (checked).
    unsafe { Tensor::from_external(dtype, data, len, shape, &strides, owner) }
        .map(Some)
        .map_err(|e| PyRuntimeError::new_err(e.to_string()))
}

/// A runtime tensor as a NumPy array viewing the runtime's buffer.
fn tensor_to_numpy<'py>(py: Python<'py>, t: Tensor) -> PyResult<Bound<'py, PyAny>> {
    let descr = match t.dtype() {
        DType::Bool => numpy::dtype::<bool>(py),
        DType::Int32 => numpy::dtype::<i32>(py),
        DType::Int64 => numpy::dtype::<i64>(py),
        DType::Float32 => numpy::dtype::<f32>(py),
        DType::Float64 => numpy::dtype::<f64>(py),
    };
    let elem = t.dtype().size_of() as npy_intp;
    let mut dims: SmallVec<[npy_intp; 8]> = t.shape().iter().map(|&d| d as npy_intp).collect();
    let mut strides: SmallVec<[npy_intp; 8]> =
        t.strides().iter().map(|&s| s as npy_intp * elem).collect();
    // An expanded view (stride 0) aliases one element many times: read-only, as NumPy's own
    // broadcast_to makes it.
    let aliased = t
        .strides()
        .iter()
        .zip(t.shape())
        .any(|(&s, &d)| s == 0 && d > 1);
    let flags: c_int = if aliased { 0 } else { NPY_ARRAY_WRITEABLE };
    let data = t.raw_view().data;
    let base = Bound::new(py, RuntimeBuffer { tensor: t })?;
    // SAFETY: `data`, `dims` and `strides` describe a view inside the tensor's storage, which is
    // allocated once and never moves; `base` (set below) owns a clone of the tensor, so the
    // storage outlives the array. NewFromDescr steals the descriptor reference into_dtype_ptr
    // gives it; SetBaseObject steals the reference to `base`.
    unsafe {
        let arr = PY_ARRAY_API.PyArray_NewFromDescr(
            py,
            npyffi::get_type_object(py, npyffi::NpyTypes::PyArray_Type),
            descr.into_dtype_ptr(),
            dims.len() as c_int,
            dims.as_mut_ptr(),
            strides.as_mut_ptr(),
            data.cast(),
            flags,
            std::ptr::null_mut(),
        );
        if arr.is_null() {
            return Err(PyErr::fetch(py));
        }
        let arr = Bound::from_owned_ptr(py, arr);
        if PY_ARRAY_API.PyArray_SetBaseObject(py, arr.as_ptr().cast(), base.into_ptr()) != 0 {
            return Err(PyErr::fetch(py));
        }
        Ok(arr)
    }
}

/// An API value as a Python value: tensors as NumPy arrays (torch tensors for the torch
/// spelling), containers element-wise.
fn to_py(py: Python<'_>, v: Value, spelling: &Spelling) -> PyResult<Py<PyAny>> {
    Ok(match v {
        Value::None => py.None(),
        Value::Bool(b) => PyBool::new(py, b).to_owned().into_any().unbind(),
        Value::Int(i) => i.into_pyobject(py)?.into_any().unbind(),
        Value::Float(x) => PyFloat::new(py, x).into_any().unbind(),
        Value::Str(s) => PyString::new(py, &s).into_any().unbind(),
        Value::DType(d) => {
            if spelling.torch {
                py.import("torch")?.getattr(d.name())?.unbind()
            } else {
                py.import("numpy")?
                    .getattr("dtype")?
                    .call1((d.name(),))?
                    .unbind()
            }
        }
        Value::Tensor(t) => {
            let arr = tensor_to_numpy(py, t)?;
            if spelling.torch {
                let torch = py.import("torch")?;
                let writeable: bool = arr.getattr("flags")?.getattr("writeable")?.extract()?;
                // torch.from_numpy warns on read-only arrays; a broadcast result is copied.
                let arr = if writeable {
                    arr
                } else {
                    arr.call_method0("copy")?
                };
                torch.getattr("from_numpy")?.call1((arr,))?.unbind()
            } else {
                arr.unbind()
            }
        }
        Value::List(items) => {
            let l = PyList::empty(py);
            for x in items {
                l.append(to_py(py, x, spelling)?)?;
            }
            l.into_any().unbind()
        }
        Value::Tuple(items) => {
            let xs = items
                .into_iter()
                .map(|x| to_py(py, x, spelling))
                .collect::<PyResult<Vec<_>>>()?;
            PyTuple::new(py, xs)?.into_any().unbind()
        }
    })
}

/// The Python exception for `e`: PyTorch's class (a builtin), `CompileError` or
/// `TracingCheckError`; the message is the rendered diagnostic.
fn to_pyerr(py: Python<'_>, e: Error) -> PyErr {
    let msg = e.to_string();
    match &e {
        Error::Compile(diags) => {
            let err = CompileError::new_err(msg);
            let _ = err.value(py).setattr("diagnostics", diags.clone());
            err
        }
        Error::TraceCheck(_) => TracingCheckError::new_err(msg),
        Error::Archive(_) => ArchiveError::new_err(msg),
        _ => {
            let class = e.python_class();
            let builtin = py
                .import("builtins")
                .and_then(|b| b.getattr(class))
                .ok()
                .and_then(|c| c.cast_into::<PyType>().ok())
                .filter(|c| {
                    c.is_subclass_of::<pyo3::exceptions::PyBaseException>()
                        .unwrap_or(false)
                });
            match builtin {
                Some(c) => PyErr::from_type(c, msg),
                // A class Python has no builtin for: RuntimeError, naming it.
                None => PyRuntimeError::new_err(format!("{class}: {msg}")),
            }
        }
    }
}

/// Writes what the program printed to Python's `sys.stdout` (so capture and redirection work).
fn write_stdout(py: Python<'_>, bytes: &[u8]) -> PyResult<()> {
    if bytes.is_empty() {
        return Ok(());
    }
    let out = py.import("sys")?.getattr("stdout")?;
    out.call_method1("write", (String::from_utf8_lossy(bytes),))?;
    Ok(())
}

fn compile_options(interpreter: bool, fastmath: bool) -> CompileOptions {
    CompileOptions {
        backend: if interpreter {
            pyjit::Backend::Interp
        } else {
            pyjit::Backend::Native
        },
        fastmath,
        ..CompileOptions::default()
    }
}

/// `cache=True`: the on-disk cache in `$PYJIT_CACHE_DIR` (else the user's cache directory).
fn cache_dir(cache: bool) -> PyResult<Option<std::path::PathBuf>> {
    if !cache {
        return Ok(None);
    }
    pyjit::cache::CodeCache::default_dir()
        .map(Some)
        .ok_or_else(|| {
            PyRuntimeError::new_err("cache=True needs $PYJIT_CACHE_DIR (or $HOME) to be set")
        })
}

/// Scripts function `name` of `source` (whose first line is line `first_line` of `filename`).
#[pyfunction]
#[pyo3(signature = (source, filename, first_line, name, interpreter = false, cache = false, fastmath = false))]
#[allow(clippy::too_many_arguments)]
fn script(
    py: Python<'_>,
    source: &str,
    filename: &str,
    first_line: u32,
    name: &str,
    interpreter: bool,
    cache: bool,
    fastmath: bool,
) -> PyResult<Py<PyFunction>> {
    let src = Source::new(filename, source).at_line(first_line);
    let opts = CompileOptions {
        cache_dir: cache_dir(cache)?,
        ..compile_options(interpreter, fastmath)
    };
    py.detach(|| Function::script(&src, name, &opts))
        .map_err(|e| to_pyerr(py, e))
        .and_then(|f| PyFunction::new_object(py, f))
}

/// Traces function `name` of `source` on `example_inputs` (a tuple of arguments).
#[pyfunction]
#[pyo3(signature = (source, filename, first_line, name, example_inputs, check_inputs = None, guards = true, interpreter = false, fastmath = false))]
#[allow(clippy::too_many_arguments)]
fn trace(
    py: Python<'_>,
    source: &str,
    filename: &str,
    first_line: u32,
    name: &str,
    example_inputs: &Bound<'_, PyTuple>,
    check_inputs: Option<&Bound<'_, PyList>>,
    guards: bool,
    interpreter: bool,
    fastmath: bool,
) -> PyResult<Py<PyFunction>> {
    let src = Source::new(filename, source).at_line(first_line);
    let mut spelling = Spelling::default();
    let (inputs, _) = convert_args(example_inputs, None, &mut spelling)?;
    let mut checks = Vec::new();
    if let Some(sets) = check_inputs {
        for set in sets.iter() {
            let set = set.cast::<PyTuple>().map_err(|_| {
                PyTypeError::new_err("check_inputs must be a list of tuples of arguments")
            })?;
            checks.push(convert_args(set, None, &mut spelling)?.0);
        }
    }
    let config = TraceConfig {
        guards,
        check_inputs: checks,
        compile: compile_options(interpreter, fastmath),
    };
    let mut printed = Vec::new();
    // The tracing run's prints: as torch.jit.trace, the function runs once.
    let r = py.detach(|| Function::trace_with_output(&src, name, inputs, &config, &mut printed));
    write_stdout(py, &printed)?;
    r.map_err(|e| to_pyerr(py, e))
        .and_then(|f| PyFunction::new_object(py, f))
}

/// Loads a function from `.pyjit` archive bytes (`pyjit.load`).
#[pyfunction]
#[pyo3(signature = (data, interpreter = false))]
fn load(py: Python<'_>, data: &[u8], interpreter: bool) -> PyResult<Py<PyFunction>> {
    // (The archive says whether it was compiled with fastmath.)
    let opts = compile_options(interpreter, false);
    py.detach(|| Function::load(data, &opts))
        .map_err(|e| to_pyerr(py, e))
        .and_then(|f| PyFunction::new_object(py, f))
}

/// Whether calls of `pyjit.Function` objects take the vectorcall protocol (once one was made):
/// for the tests, which check that this CPython's type layout was recognized.
#[pyfunction]
fn _vectorcall_enabled(py: Python<'_>) -> bool {
    vectorcall::enabled(py.get_type::<PyFunction>().as_type_ptr())
}

#[pymodule]
fn _pyjit(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("CompileError", py.get_type::<CompileError>())?;
    m.add("TracingCheckError", py.get_type::<TracingCheckError>())?;
    m.add("ArchiveError", py.get_type::<ArchiveError>())?;
    m.add_class::<PyFunction>()?;
    m.add_class::<RuntimeBuffer>()?;
    m.add_function(wrap_pyfunction!(script, m)?)?;
    m.add_function(wrap_pyfunction!(trace, m)?)?;
    m.add_function(wrap_pyfunction!(load, m)?)?;
    m.add_function(wrap_pyfunction!(_vectorcall_enabled, m)?)?;
    Ok(())
}
