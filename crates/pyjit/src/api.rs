//! The narrow API for embedding pyjit: what the Python package (`crates/pyjit-py`) and Rust
//! programs that only want to compile and call a function use.
//!
//! Everything here is built on [`Program`] (scripting, the per-signature specialization and
//! native code cache) and [`TracedProgram`] (traces with guards through the same cache); this
//! module only fits values to parameters, turns every failure into one [`Error`] and keeps its
//! own small value and error types, so that the layers below may change theirs without breaking
//! embedders.
//!
//! - [`Function::script`] compiles a function from source without running it (as
//!   `torch.jit.script`); [`Function::trace`] runs it on example inputs and records what it did
//!   (as `torch.jit.trace`, with guards by default).
//! - [`Function::call`] takes positional and keyword [`Value`]s: tensors, Python scalars,
//!   strings, dtypes, lists, tuples and `None`. A `float` parameter accepts an `int` (as Python
//!   and TorchScript do); omitted trailing parameters take their defaults.
//! - [`Function::signatures`], [`Function::graph`], [`Function::inspect_ir`] and
//!   [`Function::inspect_asm`] show what was compiled.
//! - A [`Function`] is `Send + Sync`: scripted functions are called from many threads at once
//!   and share one code cache; a traced function serializes its calls (its trace cache is
//!   updated by calls).
//!
//! ```
//! use pyjit::api::{Function, Source, Value};
//! use pyjit::runtime::Tensor;
//!
//! let src = "def scale(x, alpha: float = 2.0):\n    return x * alpha\n";
//! let f = Function::script(&Source::new("scale.py", src), "scale", &Default::default()).unwrap();
//! let x = Value::Tensor(Tensor::from_slice(&[1.0f32, 2.0]));
//! let y = f.call(vec![x.clone()], vec![]).unwrap();
//! assert_eq!(y.as_tensor().unwrap().to_vec::<f32>(), vec![2.0, 4.0]);
//! // An int where a float is declared, by keyword.
//! let y = f.call(vec![x], vec![("alpha".into(), Value::Int(3))]).unwrap();
//! assert_eq!(y.as_tensor().unwrap().to_vec::<f32>(), vec![3.0, 6.0]);
//! assert_eq!(f.signatures(), vec!["(Tensor(float32, rank 1), float)".to_string()]);
//! ```

use crate::archive::{Archive, SavedKey};
use crate::program::{Backend, CallError, Options, Program};
use crate::traced::{TraceError, TraceOptions, TracedProgram};
pub use pyjit_codegen::{SCALAR_CALL_SLOTS, ScalarArg};
use pyjit_interp::Value as IValue;
use pyjit_ir::Type;
use pyjit_opt::manager::OptLevel;
use pyjit_runtime::{DType, Tensor};
use pyjit_syntax::{Diagnostic, SourceFile};
use std::fmt;
use std::io::Write;
use std::sync::{Arc, Mutex, OnceLock};

/// Python source text and where it came from, for diagnostics.
#[derive(Clone, Debug)]
pub struct Source {
    /// The file name diagnostics show (`--> NAME:LINE:COL`).
    pub name: String,
    /// The source text.
    pub text: String,
    /// The line of the file on which `text` starts (1-based): a function taken out of a larger
    /// file (`inspect.getsourcelines`) keeps its real line numbers in diagnostics.
    pub first_line: u32,
}

impl Source {
    /// Source `text` of file `name`, starting at line 1.
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Source {
        Source {
            name: name.into(),
            text: text.into(),
            first_line: 1,
        }
    }

    /// The same text, starting at line `line` of its file.
    pub fn at_line(mut self, line: u32) -> Source {
        self.first_line = line.max(1);
        self
    }

    /// The source file the compiler sees: the text preceded by blank lines up to `first_line`,
    /// so every span renders at its real line.
    fn file(&self) -> SourceFile {
        let pad = "\n".repeat(self.first_line.saturating_sub(1) as usize);
        SourceFile::new(self.name.clone(), format!("{pad}{}", self.text))
    }
}

/// A value passed to or returned by a [`Function`].
#[derive(Clone, Debug)]
pub enum Value {
    /// Python's `None`.
    None,
    /// A Python `bool`.
    Bool(bool),
    /// A Python `int` (64-bit, wrapping as in TorchScript).
    Int(i64),
    /// A Python `float` (a double).
    Float(f64),
    /// A Python `str`.
    Str(String),
    /// A `torch.dtype` value.
    DType(DType),
    /// A tensor (shared with the caller: in-place writes are visible to it).
    Tensor(Tensor),
    /// A Python list (copied in and out, as TorchScript converts lists).
    List(Vec<Value>),
    /// A Python tuple.
    Tuple(Vec<Value>),
}

impl Value {
    /// The scalar argument this is, if it is a Python `int`, `float` or `bool`.
    pub fn as_scalar(&self) -> Option<ScalarArg> {
        Some(match *self {
            Value::Int(i) => ScalarArg::Int(i),
            Value::Float(x) => ScalarArg::Float(x),
            Value::Bool(b) => ScalarArg::Bool(b),
            _ => return None,
        })
    }

    /// The tensor, if this is one.
    pub fn as_tensor(&self) -> Option<&Tensor> {
        match self {
            Value::Tensor(t) => Some(t),
            _ => None,
        }
    }

    /// The Python name of the value's type, as error messages say it: the interpreter's name of
    /// the value it becomes.
    pub fn type_name(&self) -> &'static str {
        match self {
            // Named without converting the elements.
            Value::List(_) => IValue::list(Vec::new()).type_name(),
            Value::Tuple(_) => IValue::tuple(Vec::new()).type_name(),
            _ => self.to_dynamic().type_name(),
        }
    }

    /// A value written in the ARG syntax of `pyjit run` ([`crate::args`]: `x.npy`, `3`, `2.5`,
    /// `true`, `none`, `[a,b]`, `(a,b)`), `.npy` paths relative to `base`.
    pub fn from_arg(word: &str, base: &std::path::Path) -> Result<Value, Error> {
        let lit = crate::args::parse_arg(word).map_err(Error::Usage)?;
        Value::from_interp(crate::run::untyped_arg(&lit, base).map_err(Error::Usage)?)
    }

    /// The value with the type its own kind gives (no declared type to fit).
    fn to_dynamic(&self) -> IValue {
        match self {
            Value::None => IValue::None,
            Value::Bool(b) => IValue::Bool(*b),
            Value::Int(i) => IValue::Int(*i),
            Value::Float(x) => IValue::Float(*x),
            Value::Str(s) => IValue::str(s),
            Value::DType(d) => IValue::DType(*d),
            Value::Tensor(t) => IValue::Tensor(t.clone()),
            Value::List(items) => IValue::list(items.iter().map(Value::to_dynamic).collect()),
            Value::Tuple(items) => IValue::tuple(items.iter().map(Value::to_dynamic).collect()),
        }
    }

    /// The value fitted to declared type `ty`, or `None` when it does not fit: `int` widens to
    /// `float`, an `Optional` takes `None` or its element, containers fit element-wise.
    /// Tensor dtype and rank are not constrained here (declared tensor types are generic).
    /// Consumes the value: a tensor moves into the result rather than being copied.
    fn fit(self, ty: &Type) -> Option<IValue> {
        Some(match (ty, self) {
            (Type::Optional(_) | Type::None, Value::None) => IValue::None,
            (Type::Optional(inner), v) => v.fit(inner)?,
            (Type::Tensor(_), Value::Tensor(t)) => IValue::Tensor(t),
            (Type::Int, Value::Int(i)) => IValue::Int(i),
            (Type::Float, Value::Float(x)) => IValue::Float(x),
            (Type::Float, Value::Int(i)) => IValue::Float(i as f64),
            (Type::Bool, Value::Bool(b)) => IValue::Bool(b),
            (Type::Str, Value::Str(s)) => IValue::str(&s),
            (Type::DType, Value::DType(d)) => IValue::DType(d),
            (Type::List(elem), Value::List(items) | Value::Tuple(items)) => IValue::list(
                items
                    .into_iter()
                    .map(|v| v.fit(elem))
                    .collect::<Option<Vec<_>>>()?,
            ),
            (Type::Tuple(tys), Value::Tuple(items)) if tys.len() == items.len() => IValue::tuple(
                items
                    .into_iter()
                    .zip(tys)
                    .map(|(v, t)| v.fit(t))
                    .collect::<Option<Vec<_>>>()?,
            ),
            _ => return None,
        })
    }

    /// A value the program returned (a scalar inline: the per-call paths' common result).
    #[inline]
    fn from_interp(v: IValue) -> Result<Value, Error> {
        Ok(match v {
            IValue::Bool(b) => Value::Bool(b),
            IValue::Int(i) => Value::Int(i),
            IValue::Float(x) => Value::Float(x),
            v => return Value::from_interp_other(v),
        })
    }

    /// [`Value::from_interp`] of any value.
    fn from_interp_other(v: IValue) -> Result<Value, Error> {
        Ok(match v {
            IValue::None => Value::None,
            IValue::Bool(b) => Value::Bool(b),
            IValue::Int(i) => Value::Int(i),
            IValue::Float(x) => Value::Float(x),
            IValue::Str(s) => Value::Str(s.to_string()),
            IValue::DType(d) => Value::DType(d),
            IValue::Tensor(t) => Value::Tensor(t),
            IValue::Tuple(items) => Value::Tuple(
                items
                    .iter()
                    .cloned()
                    .map(Value::from_interp)
                    .collect::<Result<_, _>>()?,
            ),
            IValue::List(l) => Value::List(
                l.snapshot()
                    .into_iter()
                    .map(Value::from_interp)
                    .collect::<Result<_, _>>()?,
            ),
            IValue::Index(_) => {
                return Err(Error::Argument(
                    "a tensor index component cannot be returned to the caller".into(),
                ));
            }
            IValue::Dict(_) => {
                return Err(Error::Argument(
                    "a dict cannot be returned to the caller yet: return its `items()` (a list of tuples)".into(),
                ));
            }
        })
    }
}

impl From<Tensor> for Value {
    fn from(t: Tensor) -> Value {
        Value::Tensor(t)
    }
}

/// Why compiling or calling a [`Function`] failed.
#[derive(Clone, Debug)]
pub enum Error {
    /// The source does not compile (or native code could not be generated for a call's
    /// signature): every diagnostic, rendered against the source (message, `--> file:line:col`,
    /// the source line with a caret, help).
    Compile(Vec<String>),
    /// The program raised at run time.
    Run {
        /// The Python exception class PyTorch raises there (`RuntimeError`, `IndexError`, …).
        class: String,
        /// The message alone.
        message: String,
        /// The message rendered with its source location, source line and caret.
        rendered: String,
    },
    /// The arguments do not fit the parameters (count, names or types). TorchScript raises
    /// `RuntimeError` for this.
    Argument(String),
    /// `check_inputs` traced a different graph than the example inputs (torch.jit.trace's
    /// `TracingCheckError`); the rendered report.
    TraceCheck(String),
    /// The API was misused: no such function in the source, and the like.
    Usage(String),
    /// A saved archive could not be loaded (corrupt, truncated, another format version, or its
    /// IR is not what its source compiles to).
    Archive(String),
}

impl Error {
    /// The Python exception class to raise for this error: PyTorch's for run-time and argument
    /// errors, `CompileError`, `TracingCheckError`, `ArchiveError` or `ValueError` (usage)
    /// otherwise.
    pub fn python_class(&self) -> &str {
        match self {
            Error::Compile(_) => "CompileError",
            Error::Run { class, .. } => class,
            Error::Argument(_) => "RuntimeError",
            Error::TraceCheck(_) => "TracingCheckError",
            Error::Usage(_) => "ValueError",
            Error::Archive(_) => "ArchiveError",
        }
    }

    fn compile(diagnostics: &[Diagnostic], file: &SourceFile) -> Error {
        Error::Compile(diagnostics.iter().map(|d| d.render(file)).collect())
    }

    fn from_trace(e: TraceError, file: &SourceFile) -> Error {
        if e.kind == "TraceError" {
            // The tracing machinery cannot follow the program: a compile-time failure.
            return Error::Compile(vec![e.to_diagnostic().render(file)]);
        }
        Error::Run {
            rendered: e.render(file),
            class: e.kind.to_string(),
            message: e.message,
        }
    }

    fn from_call(e: CallError, function: &str) -> Error {
        match e {
            CallError::Run(e) => Error::Run {
                class: e.kind().to_string(),
                message: e.message().to_string(),
                rendered: e.render(),
            },
            CallError::BadArguments(m) => Error::Argument(m),
            CallError::UnknownFunction { .. } => Error::Usage(e.to_string()),
            CallError::Codegen(_) | CallError::Specialize(_) | CallError::Unsupported(_) => {
                Error::Compile(vec![format!("error: {function}(): {e}\n")])
            }
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Compile(d) => f.write_str(d.join("").trim_end()),
            Error::Run { rendered, .. } => f.write_str(rendered.trim_end()),
            Error::Argument(m) | Error::TraceCheck(m) | Error::Usage(m) | Error::Archive(m) => {
                f.write_str(m.trim_end())
            }
        }
    }
}

impl std::error::Error for Error {}

/// How a [`Function`] compiles its calls.
#[derive(Clone, Debug)]
pub struct CompileOptions {
    /// Native code (the default) or the reference interpreter.
    pub backend: Backend,
    /// The optimization level of each specialization (`-O2` by default).
    pub opt_level: OptLevel,
    /// Native backend: the directory of the on-disk cache of optimized specializations
    /// ([`crate::cache`]: optimized IR, not machine code), or `None` (the default) for none.
    pub cache_dir: Option<std::path::PathBuf>,
    /// The number of threads the runtime's kernels use (large elementwise ops, reductions,
    /// matrix products), or `None` (the default) to leave it as it is: `PYJIT_NUM_THREADS`, else
    /// the machine's cores. The kernel pool is process-wide: compiling a function with
    /// `Some(n)` sets it for every function from then on (`Some(0)`: back to the default).
    /// Results do not depend on it (docs/kernels.md).
    pub num_threads: Option<usize>,
    /// Fast math (`fastmath=True` in Python, `--fastmath`): float32 `tanh` by a cheaper
    /// kernel within 6.5 ulp instead of 0.88 ([`pyjit_opt::fastmath`]). Off by default.
    pub fastmath: bool,
}

impl Default for CompileOptions {
    fn default() -> CompileOptions {
        CompileOptions {
            backend: Backend::Native,
            opt_level: OptLevel::O2,
            cache_dir: None,
            num_threads: None,
            fastmath: false,
        }
    }
}

impl CompileOptions {
    /// The program options, after applying `num_threads` to the runtime's pool.
    fn program_options(&self) -> Options {
        if let Some(n) = self.num_threads {
            pyjit_runtime::ops::vmath::set_num_threads(n);
        }
        let mut options = Options {
            backend: self.backend,
            cache: self.cache_dir.clone().map(crate::cache::CodeCache::new),
            ..Options::at_level(self.opt_level)
        };
        options.opt.fastmath = self.fastmath;
        options
    }
}

/// How [`Function::trace`] traces.
#[derive(Clone, Debug)]
pub struct TraceConfig {
    /// Check the guards on every call and re-trace when one fails (the default). Off, the first
    /// trace answers every call whatever its inputs, as `torch.jit.trace` does.
    pub guards: bool,
    /// Further input sets to trace and compare with the example inputs' graph (`check_inputs`):
    /// a different graph is an [`Error::TraceCheck`].
    pub check_inputs: Vec<Vec<Value>>,
    /// Backend and optimization level of the traces.
    pub compile: CompileOptions,
}

impl Default for TraceConfig {
    fn default() -> TraceConfig {
        TraceConfig {
            guards: true,
            check_inputs: Vec::new(),
            compile: CompileOptions::default(),
        }
    }
}

/// A call of a [`Function`] with bound arguments ([`Function::prepare`]).
pub struct Call<'a> {
    f: &'a Function,
    inner: CallInner<'a>,
}

enum CallInner<'a> {
    Script(crate::program::PreparedCall<'a>),
    /// The function's [`FastPath`] with the positional arguments it matched, not fitted yet.
    Fast(&'a Program, &'a FastPath, Vec<Value>),
    Trace(&'a Mutex<TracedProgram>, Vec<IValue>),
    /// A NumPy-style function called with scalars for parameters that take their argument's
    /// type: the function compiled for those types, and the call's arguments.
    Typed(Arc<Function>, Vec<Value>, Vec<(String, Value)>),
}

impl Call<'_> {
    /// Whether the call runs compiled code whose time is bounded whatever the arguments' values
    /// and sizes (no loop, call or tensor kernel); false when that code is not compiled yet
    /// and for traced functions.
    pub fn runs_in_bounded_time(&self) -> bool {
        match &self.inner {
            CallInner::Script(c) => c.runs_in_bounded_time(),
            CallInner::Fast(_, fast, _) => fast.native.runs_in_bounded_time(),
            CallInner::Trace(..) | CallInner::Typed(..) => false,
        }
    }

    /// Runs the call (compiling its specialization first if needed), writing its `print`s to
    /// `out`.
    pub fn run(self, out: &mut dyn Write) -> Result<Value, Error> {
        let f = self.f;
        let v = match self.inner {
            CallInner::Script(c) => c.run(out).map_err(|e| Error::from_call(e, &f.name))?,
            CallInner::Fast(p, fast, args) => {
                if fast.scalars {
                    return f.run_scalar_values(p, fast, args, out);
                }
                let types = f.params.as_ref().map_or(&[][..], |p| &p.types[..]);
                // Each argument has its parameter's fast kind (checked by `prepare`), which
                // `fit` takes; a `None` here could only reach native code's own type check.
                let args = args
                    .into_iter()
                    .zip(types)
                    .map(|(v, t)| v.fit(t).unwrap_or(IValue::None));
                p.run_native(&fast.native, args, out)
                    .map_err(|e| Error::from_call(e, &f.name))?
            }
            CallInner::Trace(t, args) => t
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .call_to(args, out)
                .map_err(|e| Error::from_trace(e, &f.file))?,
            CallInner::Typed(typed, args, kwargs) => {
                return typed.call_with_output(args, kwargs, out);
            }
        };
        Value::from_interp(v)
    }
}

/// `args` as scalar arguments in `buf`, if every one is a scalar and they fit.
fn scalar_args<'b>(
    args: &[Value],
    buf: &'b mut [ScalarArg; SCALAR_CALL_SLOTS],
) -> Option<&'b [ScalarArg]> {
    let n = args.len();
    if n > SCALAR_CALL_SLOTS {
        return None;
    }
    for (s, v) in buf.iter_mut().zip(args) {
        *s = v.as_scalar()?;
    }
    Some(&buf[..n])
}

/// A call of a scalar function's per-call path ([`Function::scalar_call`]).
pub struct ScalarCall<'a, 'b> {
    f: &'a Function,
    p: &'a Program,
    fast: &'a FastPath,
    args: &'b [ScalarArg],
}

impl ScalarCall<'_, '_> {
    /// Whether the compiled code takes a bounded time (see [`Call::runs_in_bounded_time`]).
    #[inline]
    pub fn runs_in_bounded_time(&self) -> bool {
        self.fast.native.runs_in_bounded_time()
    }

    /// Runs the call, writing its `print`s to `out`.
    #[inline]
    pub fn run(self, out: &mut dyn Write) -> Result<Value, Error> {
        let v = self
            .p
            .run_native_scalars(&self.fast.native, self.args, out)
            .map_err(|e| Error::from_call(e, &self.f.name))?;
        Value::from_interp(v)
    }
}

enum Kind {
    Script(Program),
    /// A NumPy-style function that compiles only once its argument-typed parameters have their
    /// arguments' types (`range(n)` of a parameter `n`): every call must give them `int`,
    /// `float` or `bool` values; the error of compiling it with them as tensors.
    ArgTyped(Error),
    /// The traces, behind a lock: a call may record a new trace.
    Trace(Mutex<TracedProgram>),
}

/// A compiled Python function (see the module docs).
pub struct Function {
    name: String,
    /// The source as given (saved in archives).
    origin: Source,
    file: Arc<SourceFile>,
    /// Parameter names, declared types and defaults, when the source scripts (always for a
    /// scripted function; for a traced one only if its file also scripts).
    params: Option<Params>,
    kind: Kind,
    /// Scripted, native: the compiled code of the first signature called twice with
    /// positional scalar and tensor arguments, and what each argument must be to take it.
    fast: OnceLock<FastPath>,
    /// Scripted from a NumPy-style module with parameters that take their argument's type
    /// ([`pyjit_script::argument_typed_params`]): how to compile it again, and the function
    /// compiled for each combination of those types seen so far (Numba's dispatcher).
    by_arg_types: Option<ByArgTypes>,
    /// Compiled with [`CompileOptions::fastmath`].
    fastmath: bool,
}

/// The per-argument-type versions of a NumPy-style function.
struct ByArgTypes {
    options: CompileOptions,
    /// The parameters' names, and whether each takes its argument's type.
    names: Vec<String>,
    from_args: Vec<bool>,
    compiled: Mutex<Vec<(ArgTypesKey, Arc<Function>)>>,
    /// The first version compiled, read without the lock by the per-call path of positional
    /// scalars ([`Function::scalar_call`]): Numba's kernels are called with one signature.
    first: OnceLock<(ArgTypesKey, Arc<Function>)>,
}

impl ByArgTypes {
    /// The argument types a call gives (`positional` arguments' types in order, then the
    /// keywords'): per parameter, the type of its argument if it takes it (an `int`, `float` or
    /// `bool`), else `None`.
    fn key<'k>(
        &self,
        positional: impl Iterator<Item = Option<Type>>,
        keywords: impl Iterator<Item = (&'k str, Option<Type>)>,
    ) -> ArgTypesKey {
        let mut key: ArgTypesKey = smallvec::smallvec![None; self.from_args.len()];
        for (i, t) in positional.enumerate() {
            if self.from_args.get(i) == Some(&true) {
                key[i] = t;
            }
        }
        for (k, t) in keywords {
            if let Some(i) = self.names.iter().position(|n| n == k)
                && self.from_args.get(i) == Some(&true)
            {
                key[i] = t;
            }
        }
        key
    }

    /// Whether positional scalars `args` give the argument types `key`.
    fn scalars_give(&self, key: &ArgTypesKey, args: &[ScalarArg]) -> bool {
        args.len() <= self.from_args.len()
            && self.key(args.iter().map(|&a| Some(arg_type(a))), std::iter::empty()) == *key
    }
}

/// The type a parameter that takes its argument's type gets from scalar `a`.
fn arg_type(a: ScalarArg) -> Type {
    match a {
        ScalarArg::Int(_) => Type::Int,
        ScalarArg::Float(_) => Type::Float,
        ScalarArg::Bool(_) => Type::Bool,
    }
}

/// Per parameter: the type its argument gave it (`None`: the parameter's own rule).
type ArgTypesKey = smallvec::SmallVec<[Option<Type>; 4]>;

/// The per-call path of a scripted function called with one signature (the common case):
/// the compiled code and, per parameter, the [`FastArg`] an argument must have. A call that
/// matches skips binding, the program's argument checks and its code-cache lookup; any other
/// call (keywords, defaults, another signature, containers) takes the general path.
struct FastPath {
    native: pyjit_codegen::NativeFunction,
    args: smallvec::SmallVec<[FastArg; 4]>,
    /// Every argument a scalar, few enough for [`pyjit_codegen::NativeFunction::call_scalars`].
    scalars: bool,
}

impl FastPath {
    /// Whether positional `args` for parameters of declared types `types` take this path.
    fn matches(&self, args: &[Value], types: &[Type]) -> bool {
        self.matches_by(args, types, FastArg::of)
    }

    /// [`FastPath::matches`] for arguments that are all scalars.
    fn matches_scalars(&self, args: &[ScalarArg], types: &[Type]) -> bool {
        self.matches_by(args, types, |&s, t| FastArg::of_scalar(s, t))
    }

    /// Whether each argument's `kind` for its parameter's type is the path's.
    #[inline(always)]
    fn matches_by<A>(
        &self,
        args: &[A],
        types: &[Type],
        kind: impl Fn(&A, &Type) -> Option<FastArg>,
    ) -> bool {
        args.len() == self.args.len()
            && args
                .iter()
                .zip(types)
                .zip(&self.args)
                .all(|((a, t), &k)| kind(a, t) == Some(k))
    }
}

/// What an argument of the fast path is: a scalar fitted to its declared type without
/// conversion (or an `int` widened to a `float` parameter), or a tensor of the dtype and rank
/// (the code-cache key) the code was compiled for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FastArg {
    Int,
    Float,
    IntAsFloat,
    Bool,
    Tensor(DType, usize),
}

impl FastArg {
    /// The kind of `v` passed to a parameter declared `ty`, when the fast path can take it
    /// (a tensor parameter only when its declared type is generic, so that the code-cache
    /// key, dtype and rank, is all a tensor's fitness depends on).
    fn of(v: &Value, ty: &Type) -> Option<FastArg> {
        match (ty, v) {
            (Type::Tensor(tt), Value::Tensor(t)) if *tt == pyjit_ir::TensorType::generic() => {
                Some(FastArg::Tensor(t.dtype(), t.dim()))
            }
            _ => FastArg::of_scalar(v.as_scalar()?, ty),
        }
    }

    /// The kind of scalar `s` passed to a parameter declared `ty`.
    fn of_scalar(s: ScalarArg, ty: &Type) -> Option<FastArg> {
        Some(match (ty, s) {
            (Type::Int, ScalarArg::Int(_)) => FastArg::Int,
            (Type::Float, ScalarArg::Float(_)) => FastArg::Float,
            (Type::Float, ScalarArg::Int(_)) => FastArg::IntAsFloat,
            (Type::Bool, ScalarArg::Bool(_)) => FastArg::Bool,
            _ => return None,
        })
    }
}

struct Params {
    names: Vec<String>,
    types: Vec<Type>,
    defaults: Vec<Option<IValue>>,
}

impl Params {
    fn of(program: &Program, name: &str) -> Option<Params> {
        let (names, types) = program.params(name).ok()?.into_iter().unzip();
        Some(Params {
            names,
            types,
            defaults: program.defaults(name).unwrap_or_default(),
        })
    }
}

impl Function {
    /// Scripts function `name` of `source` (and the functions and constants of the source it
    /// uses): parsed, type-checked and lowered to IR without running anything. Native code is
    /// compiled on the first call per signature.
    pub fn script(
        source: &Source,
        name: &str,
        options: &CompileOptions,
    ) -> Result<Function, Error> {
        Function::script_for(source, name, options, None)
    }

    /// [`Function::script`]; with `arg_types`, the version of a NumPy-style function whose
    /// argument-typed parameters have these types (`None`: the parameter's own rule).
    fn script_for(
        source: &Source,
        name: &str,
        options: &CompileOptions,
        arg_types: Option<&[Option<Type>]>,
    ) -> Result<Function, Error> {
        let file = source.file();
        let compiled = match arg_types {
            None => Program::compile_with(file.clone(), options.program_options()),
            Some(types) => {
                // Example values of the types: the program reads only their kinds.
                let examples: Vec<IValue> = types
                    .iter()
                    .map(|t| match t {
                        Some(Type::Int) => IValue::Int(0),
                        Some(Type::Float) => IValue::Float(0.0),
                        Some(Type::Bool) => IValue::Bool(false),
                        _ => IValue::None,
                    })
                    .collect();
                Program::compile_for_call(
                    file.clone(),
                    options.program_options(),
                    Some(name),
                    &examples,
                )
            }
        };
        let by_arg_types = match arg_types {
            Some(_) => None,
            None => pyjit_syntax::parse_module(&file)
                .ok()
                .map(|ast| pyjit_script::argument_typed_params(&ast, name))
                .filter(|params| params.iter().any(|(_, typed)| *typed))
                .map(|params| ByArgTypes {
                    options: options.clone(),
                    names: params.iter().map(|(n, _)| n.clone()).collect(),
                    from_args: params.iter().map(|(_, t)| *t).collect(),
                    compiled: Mutex::new(Vec::new()),
                    first: OnceLock::new(),
                }),
        };
        let program = match compiled {
            Ok(p) => p,
            // Calls with scalars for the argument-typed parameters compile their own version.
            Err(d) if by_arg_types.is_some() => {
                let e = Error::compile(&d, &file);
                return Ok(Function {
                    name: name.to_string(),
                    origin: source.clone(),
                    file: Arc::new(file),
                    params: None,
                    kind: Kind::ArgTyped(e),
                    fast: OnceLock::new(),
                    by_arg_types,
                    fastmath: options.fastmath,
                });
            }
            Err(d) => return Err(Error::compile(&d, &file)),
        };
        let params = Params::of(&program, name).ok_or_else(|| {
            Error::Usage(format!(
                "no function `{name}` in {}; it defines: {}",
                file.name,
                program.function_names().join(", ")
            ))
        })?;
        Ok(Function {
            name: name.to_string(),
            origin: source.clone(),
            file: Arc::new(file),
            params: Some(params),
            kind: Kind::Script(program),
            fast: OnceLock::new(),
            by_arg_types,
            fastmath: options.fastmath,
        })
    }

    /// For a call of a NumPy-style function with an `int`, `float` or `bool` argument for a
    /// parameter that takes its argument's type: the function compiled for those types
    /// (compiled on the first such call).
    fn typed_version(
        &self,
        args: &[Value],
        kwargs: &[(String, Value)],
    ) -> Result<Option<Arc<Function>>, Error> {
        let Some(by) = &self.by_arg_types else {
            return Ok(None);
        };
        let kind = |v: &Value| v.as_scalar().map(arg_type);
        let key = by.key(
            args.iter().map(kind),
            kwargs.iter().map(|(k, v)| (k.as_str(), kind(v))),
        );
        if key.iter().all(Option::is_none) {
            return Ok(None);
        }
        let mut compiled = by.compiled.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, f)) = compiled.iter().find(|(k, _)| *k == key) {
            return Ok(Some(f.clone()));
        }
        let f = Arc::new(Function::script_for(
            &self.origin,
            &self.name,
            &by.options,
            Some(&key),
        )?);
        // Only the first one is kept there (a later `set` does nothing).
        let _ = by.first.set((key.clone(), f.clone()));
        compiled.push((key, f.clone()));
        Ok(Some(f))
    }

    /// Traces function `name` of `source` on `example_inputs` (running it once, as
    /// `torch.jit.trace` does: in-place writes to the inputs happen), then checks the trace
    /// against `config.check_inputs`. Later calls run the compiled trace; with guards on, a call
    /// whose inputs take another path re-traces.
    pub fn trace(
        source: &Source,
        name: &str,
        example_inputs: Vec<Value>,
        config: &TraceConfig,
    ) -> Result<Function, Error> {
        Function::trace_with_output(source, name, example_inputs, config, &mut std::io::stdout())
    }

    /// [`Function::trace`], writing what the tracing run prints to `out`.
    pub fn trace_with_output(
        source: &Source,
        name: &str,
        example_inputs: Vec<Value>,
        config: &TraceConfig,
        out: &mut dyn Write,
    ) -> Result<Function, Error> {
        let file = source.file();
        let ast = pyjit_syntax::parse_module(&file).map_err(|d| Error::compile(&d, &file))?;
        let names = pyjit_script::function_names(&ast);
        if !names.iter().any(|n| n == name) {
            return Err(Error::Usage(format!(
                "no function `{name}` in {}; it defines: {}",
                file.name,
                names.join(", ")
            )));
        }
        // Declared parameter types, when the file scripts too, fit the arguments.
        let params = Program::compile(file.clone())
            .ok()
            .and_then(|p| Params::of(&p, name));
        let opts = if config.guards {
            TraceOptions::default()
        } else {
            TraceOptions::no_guards()
        };
        let traced = TracedProgram::new(file.clone(), ast, name, opts, config.compile.backend)
            .with_opt(config.compile.program_options().opt);
        let f = Function {
            name: name.to_string(),
            origin: source.clone(),
            file: Arc::new(file),
            params,
            kind: Kind::Trace(Mutex::new(traced)),
            fast: OnceLock::new(),
            by_arg_types: None,
            fastmath: config.compile.fastmath,
        };
        if !config.check_inputs.is_empty() {
            let mut sets = vec![f.bind(example_inputs.clone(), Vec::new())?];
            for set in &config.check_inputs {
                sets.push(f.bind(set.clone(), Vec::new())?);
            }
            let Kind::Trace(t) = &f.kind else {
                unreachable!("made as a trace above")
            };
            let report = {
                let t = t.lock().unwrap_or_else(|p| p.into_inner());
                let ast = pyjit_syntax::parse_module(t.source())
                    .map_err(|d| Error::compile(&d, &f.file))?;
                crate::traced::check_trace(&f.file, &ast, name, sets, &mut std::io::sink())
                    .map_err(|e| Error::from_trace(e, &f.file))?
            };
            if !report.is_ok() {
                return Err(Error::TraceCheck(report.render(&f.file)));
            }
        }
        // Record the first trace now, as torch.jit.trace does; its result is not needed.
        f.call_with_output(example_inputs, Vec::new(), out)?;
        Ok(f)
    }

    /// The function's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The source file as the compiler sees it (diagnostics render against it).
    pub fn source(&self) -> &SourceFile {
        &self.file
    }

    /// Parameter names, when known (always for scripted functions).
    pub fn param_names(&self) -> Option<&[String]> {
        self.params.as_ref().map(|p| p.names.as_slice())
    }

    /// Whether this function was traced rather than scripted.
    pub fn is_traced(&self) -> bool {
        matches!(self.kind, Kind::Trace(_))
    }

    /// The arguments as the program takes them: keywords bound to parameters, defaults filled
    /// in, each fitted to its declared type.
    fn bind(&self, args: Vec<Value>, kwargs: Vec<(String, Value)>) -> Result<Vec<IValue>, Error> {
        let name = &self.name;
        let Some(p) = &self.params else {
            if let Some((k, _)) = kwargs.first() {
                return Err(Error::Argument(format!(
                    "{name}() got an unexpected keyword argument '{k}' (keywords need a function whose parameters are typed)"
                )));
            }
            return Ok(args.iter().map(Value::to_dynamic).collect());
        };
        let n = p.names.len();
        if args.len() > n {
            return Err(Error::Argument(format!(
                "{name}() expected at most {n} argument(s) but received {} argument(s). Declaration: {name}({})",
                args.len(),
                p.names.join(", ")
            )));
        }
        // Each given value moves into its slot (a tensor is not copied); a missing one takes its
        // default.
        let fill = |i: usize, v: Option<Value>| -> Result<IValue, Error> {
            let (pname, ty) = (&p.names[i], &p.types[i]);
            match v {
                Some(v) => {
                    let found = v.type_name();
                    v.fit(ty).ok_or_else(|| {
                        Error::Argument(format!(
                            "{name}() Expected a value of type '{ty}' for argument '{pname}' but instead found type '{found}'."
                        ))
                    })
                }
                None => p.defaults.get(i).cloned().flatten().ok_or_else(|| {
                    Error::Argument(format!(
                        "{name}() is missing value for argument '{pname}'. Declaration: {name}({})",
                        p.names.join(", ")
                    ))
                }),
            }
        };
        let mut bound = Vec::with_capacity(n);
        if kwargs.is_empty() {
            // Positional only (the per-call path from Python): no slot table.
            let given = args.len();
            for (i, v) in args.into_iter().enumerate() {
                bound.push(fill(i, Some(v))?);
            }
            for i in given..n {
                bound.push(fill(i, None)?);
            }
            return Ok(bound);
        }
        let mut slots: Vec<Option<Value>> = args.into_iter().map(Some).collect();
        slots.resize_with(n, || None);
        for (k, v) in kwargs {
            let Some(i) = p.names.iter().position(|m| *m == k) else {
                return Err(Error::Argument(format!(
                    "{name}() got an unexpected keyword argument '{k}'"
                )));
            };
            if slots[i].is_some() {
                return Err(Error::Argument(format!(
                    "{name}() got multiple values for argument '{k}'"
                )));
            }
            slots[i] = Some(v);
        }
        for (i, v) in slots.into_iter().enumerate() {
            bound.push(fill(i, v)?);
        }
        Ok(bound)
    }

    /// Calls the function; its `print`s go to the process's stdout.
    pub fn call(&self, args: Vec<Value>, kwargs: Vec<(String, Value)>) -> Result<Value, Error> {
        self.call_with_output(args, kwargs, &mut std::io::stdout())
    }

    /// Calls the function, writing its `print`s to `out`.
    pub fn call_with_output(
        &self,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
        out: &mut dyn Write,
    ) -> Result<Value, Error> {
        // The per-call path of a scalar function called as before: nothing to bind or prepare.
        let mut scalars = [ScalarArg::Int(0); SCALAR_CALL_SLOTS];
        if kwargs.is_empty()
            && let Some(scalars) = scalar_args(&args, &mut scalars)
            && let Some(call) = self.scalar_call(scalars)
        {
            return call.run(out);
        }
        self.prepare(args, kwargs)?.run(out)
    }

    /// The per-call path of a scripted function called again with positional scalars that
    /// take its [`FastPath`] (`f(1, 2.0)` from Python): no binding, argument checks or
    /// code-cache lookup, the arguments' slots on the stack. `None` when the arguments do not
    /// take it (another signature, not compiled yet, a traced function); [`Function::prepare`]
    /// then takes them.
    #[inline]
    pub fn scalar_call<'b>(&self, args: &'b [ScalarArg]) -> Option<ScalarCall<'_, 'b>> {
        if let Some(by) = &self.by_arg_types {
            // A NumPy-style function: the version for these argument types takes the call
            // when it is the first one compiled (its own fast path then decides).
            let (key, typed) = by.first.get()?;
            return if by.scalars_give(key, args) {
                typed.scalar_call(args)
            } else {
                None
            };
        }
        let (Kind::Script(p), Some(fast)) = (&self.kind, self.fast.get()) else {
            return None;
        };
        let types = self.params.as_ref().map_or(&[][..], |p| &p.types[..]);
        (fast.scalars && fast.matches_scalars(args, types)).then_some(ScalarCall {
            f: self,
            p,
            fast,
            args,
        })
    }

    /// Runs the scalar [`FastPath`] on the positional `args` it [matched](FastPath::matches).
    fn run_scalar_values(
        &self,
        p: &Program,
        fast: &FastPath,
        args: Vec<Value>,
        out: &mut dyn Write,
    ) -> Result<Value, Error> {
        let mut scalars = [ScalarArg::Int(0); SCALAR_CALL_SLOTS];
        let Some(scalars) = scalar_args(&args, &mut scalars) else {
            // Not all scalars (the fast path's match rules it out): the program's own path.
            let v = p
                .prepare_call(&self.name, self.bind(args, Vec::new())?)
                .and_then(|c| c.run(out))
                .map_err(|e| Error::from_call(e, &self.name))?;
            return Value::from_interp(v);
        };
        ScalarCall {
            f: self,
            p,
            fast,
            args: scalars,
        }
        .run(out)
    }

    /// A call with these arguments, bound and checked, ready to [run](Call::run); nothing is
    /// compiled until then. [`Call::runs_in_bounded_time`] says whether it will take a bounded
    /// time (the Python package keeps the GIL for those calls).
    pub fn prepare(
        &self,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    ) -> Result<Call<'_>, Error> {
        if let Some(typed) = self.typed_version(&args, &kwargs)? {
            return Ok(Call {
                f: self,
                inner: CallInner::Typed(typed, args, kwargs),
            });
        }
        let p = match &self.kind {
            Kind::Script(p) => p,
            Kind::ArgTyped(e) => return Err(e.clone()),
            Kind::Trace(t) => {
                return Ok(Call {
                    f: self,
                    inner: CallInner::Trace(t, self.bind(args, kwargs)?),
                });
            }
        };
        let types = self.params.as_ref().map_or(&[][..], |p| &p.types[..]);
        let fast = self.fast.get();
        if let Some(fast) = fast
            && kwargs.is_empty()
            && fast.matches(&args, types)
        {
            return Ok(Call {
                f: self,
                inner: CallInner::Fast(p, fast, args),
            });
        }
        // Until the fast path is set: the kinds of positional arguments that could take it.
        let kinds = match fast {
            None if kwargs.is_empty() && args.len() == types.len() => args
                .iter()
                .zip(types)
                .map(|(v, t)| FastArg::of(v, t))
                .collect::<Option<smallvec::SmallVec<[FastArg; 4]>>>(),
            _ => None,
        };
        let call = p
            .prepare_call(&self.name, self.bind(args, kwargs)?)
            .map_err(|e| Error::from_call(e, &self.name))?;
        if let (Some(kinds), Some(native)) = (kinds, call.native()) {
            // Compiled already (this is a cache hit): later calls of this signature take the
            // fast path.
            let scalars = kinds.len() <= pyjit_codegen::SCALAR_CALL_SLOTS
                && kinds.iter().all(|k| !matches!(k, FastArg::Tensor(..)));
            let _ = self.fast.set(FastPath {
                native: native.clone(),
                args: kinds,
                scalars,
            });
        }
        Ok(Call {
            f: self,
            inner: CallInner::Script(call),
        })
    }

    /// Compiles what a call with these arguments runs (its signature's specialization; native
    /// code by default) without calling it. Traced functions compile when called.
    pub fn compile_for(&self, args: Vec<Value>, kwargs: Vec<(String, Value)>) -> Result<(), Error> {
        if let Some(typed) = self.typed_version(&args, &kwargs)? {
            return typed.compile_for(args, kwargs);
        }
        let args = self.bind(args, kwargs)?;
        match &self.kind {
            Kind::Script(p) => p
                .prepare(&self.name, &args)
                .map_err(|e| Error::from_call(e, &self.name)),
            Kind::ArgTyped(e) => Err(e.clone()),
            Kind::Trace(_) => Err(Error::Usage(format!(
                "{}() is traced: it compiles when called",
                self.name
            ))),
        }
    }

    /// The signatures compiled so far, oldest first, each as `(Tensor(float32, rank 1), float)`:
    /// tensors by dtype and rank, other values by kind — the code cache's key.
    pub fn signatures(&self) -> Vec<String> {
        let compilations = match &self.kind {
            Kind::Script(p) => p.compilations(),
            Kind::ArgTyped(_) => Vec::new(),
            Kind::Trace(t) => t.lock().unwrap_or_else(|p| p.into_inner()).compilations(),
        };
        let mut out: Vec<String> = Vec::new();
        for c in compilations {
            let items: Vec<String> = c.signature.0.iter().map(|k| k.to_string()).collect();
            let s = format!("({})", items.join(", "));
            if !out.contains(&s) {
                out.push(s);
            }
        }
        // The versions compiled for argument types (NumPy-style functions), in order.
        if let Some(by) = &self.by_arg_types {
            let compiled = by.compiled.lock().unwrap_or_else(|p| p.into_inner());
            for (_, f) in compiled.iter() {
                for s in f.signatures() {
                    if !out.contains(&s) {
                        out.push(s);
                    }
                }
            }
        }
        out
    }

    /// How many of the specializations compiled so far came from the on-disk cache.
    pub fn cache_hits(&self) -> usize {
        let compilations = match &self.kind {
            Kind::Script(p) => p.compilations(),
            Kind::ArgTyped(_) => Vec::new(),
            Kind::Trace(t) => t.lock().unwrap_or_else(|p| p.into_inner()).compilations(),
        };
        compilations.iter().filter(|c| c.cached).count()
    }

    /// The generic IR: the scripted function as one graph for every signature, or, traced, the
    /// IR of every trace recorded so far (oldest first), guards included.
    pub fn graph(&self) -> String {
        match &self.kind {
            Kind::Script(p) => match p.module().function_by_name(&self.name) {
                Some(id) => pyjit_ir::print_function(p.module(), id),
                None => String::new(),
            },
            Kind::ArgTyped(_) => String::new(),
            Kind::Trace(t) => {
                let t = t.lock().unwrap_or_else(|p| p.into_inner());
                t.traces()
                    .iter()
                    .map(|tr| tr.print())
                    .collect::<Vec<_>>()
                    .join("\n")
            }
        }
    }

    /// The module and entry a call with `args` runs: specialized for their signature and
    /// optimized. A traced function must have been called (or traced) with arguments of this
    /// structure before.
    fn specialized(
        &self,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    ) -> Result<(pyjit_ir::Module, pyjit_ir::FuncId), Error> {
        if let Some(typed) = self.typed_version(&args, &kwargs)? {
            return typed.specialized(args, kwargs);
        }
        let args = self.bind(args, kwargs)?;
        let r = match &self.kind {
            Kind::Script(p) => p.specialize_optimized(&self.name, &args),
            Kind::ArgTyped(e) => return Err(e.clone()),
            Kind::Trace(t) => {
                let t = t.lock().unwrap_or_else(|p| p.into_inner());
                let Some((p, entry)) = t.program_for(&args) else {
                    return Err(Error::Usage(format!(
                        "{}() has no trace for arguments of this structure yet; call it with them first",
                        self.name
                    )));
                };
                p.specialize_optimized(entry, &args)
            }
        };
        r.map(|(m, id, _)| (m, id))
            .map_err(|e| Error::from_call(e, &self.name))
    }

    /// The IR a call with `args` runs: specialized for their signature and optimized.
    pub fn inspect_ir(
        &self,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    ) -> Result<String, Error> {
        let (m, id) = self.specialized(args, kwargs)?;
        Ok(pyjit_ir::print_function(&m, id))
    }

    /// The machine code of a call with `args` (Cranelift's disassembly), for every function of
    /// the specialized module.
    pub fn inspect_asm(
        &self,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    ) -> Result<String, Error> {
        let (m, _) = self.specialized(args, kwargs)?;
        pyjit_codegen::emit_asm(&m).map_err(|e| {
            Error::Compile(vec![format!(
                "error: native code generation failed for {}(): {e}\n",
                self.name
            )])
        })
    }

    /// The function as a `.pyjit` archive ([`crate::archive`]): its source, its scripted IR
    /// and the signatures compiled so far. Traced functions cannot be saved (a trace is made by
    /// running the function; save the source and trace it again).
    pub fn save(&self) -> Result<Vec<u8>, Error> {
        let p = match &self.kind {
            Kind::Script(p) => p,
            Kind::ArgTyped(_) => {
                return Err(Error::Usage(format!(
                    "{}() compiles only for its arguments' types (a NumPy-style function); save its source instead",
                    self.name
                )));
            }
            Kind::Trace(_) => {
                return Err(Error::Usage(format!(
                    "{}() is traced; only scripted functions can be saved",
                    self.name
                )));
            }
        };
        let mut signatures = Vec::new();
        for c in p.compilations() {
            if let Some(sig) = c
                .signature
                .0
                .iter()
                .map(SavedKey::of)
                .collect::<Option<Vec<_>>>()
                && !signatures.contains(&sig)
            {
                signatures.push(sig);
            }
        }
        Ok(Archive {
            pyjit_version: env!("CARGO_PKG_VERSION").to_string(),
            function: self.name.clone(),
            file: self.origin.name.clone(),
            first_line: self.origin.first_line,
            source: self.origin.text.clone(),
            ir: self.graph(),
            signatures,
            fastmath: self.fastmath,
        }
        .to_bytes())
    }

    /// Loads a `.pyjit` archive: compiles its source (nothing saved is executed or trusted as
    /// code), checks that the IR is the one saved when the archive comes from this pyjit
    /// version, and compiles the saved signatures ahead of the first call. The archive's math
    /// mode (fastmath or not) is part of what was saved: it overrides `options.fastmath`.
    pub fn load(bytes: &[u8], options: &CompileOptions) -> Result<Function, Error> {
        let a = Archive::from_bytes(bytes).map_err(|e| Error::Archive(e.0))?;
        let source = Source::new(a.file.clone(), a.source.clone()).at_line(a.first_line);
        let options = CompileOptions {
            fastmath: a.fastmath,
            ..options.clone()
        };
        let f = Function::script(&source, &a.function, &options)?;
        if a.pyjit_version == env!("CARGO_PKG_VERSION") && f.graph() != a.ir {
            return Err(Error::Archive(format!(
                "the archive's IR is not what pyjit {} compiles from the archive's source: it was altered",
                a.pyjit_version
            )));
        }
        let (Kind::Script(p), Some(params)) = (&f.kind, &f.params) else {
            unreachable!("Function::script makes a scripted function with parameters")
        };
        for sig in &a.signatures {
            if sig.len() != params.types.len() {
                return Err(Error::Archive(format!(
                    "a saved signature has {} argument(s), {}() takes {}",
                    sig.len(),
                    f.name,
                    params.types.len()
                )));
            }
            let args: Vec<IValue> = sig.iter().map(example_value).collect();
            // A signature that does not compile now reports so on the call that needs it.
            let _ = p.prepare(&f.name, &args);
        }
        Ok(f)
    }

    /// Whether the function was compiled with fastmath ([`CompileOptions::fastmath`]; for a
    /// loaded archive, what it was saved with).
    pub fn fastmath(&self) -> bool {
        self.fastmath
    }

    /// TracerWarnings of the traces recorded so far, rendered (empty for scripted functions).
    pub fn warnings(&self) -> Vec<String> {
        match &self.kind {
            Kind::Script(_) | Kind::ArgTyped(_) => Vec::new(),
            Kind::Trace(t) => {
                let t = t.lock().unwrap_or_else(|p| p.into_inner());
                t.warnings.iter().map(|w| w.render(&self.file)).collect()
            }
        }
    }
}

/// A value of the saved kind `k`, to compile a saved signature with (a signature keys tensors
/// by dtype and rank only, so a tensor of ones in every dimension stands for all).
fn example_value(k: &SavedKey) -> IValue {
    match k {
        SavedKey::Tensor(d, r) => IValue::Tensor(
            Tensor::zeros(&vec![1; *r as usize], *d)
                .unwrap_or_else(|_| Tensor::from_slice(&[0.0f32])),
        ),
        SavedKey::Int => IValue::Int(0),
        SavedKey::Float => IValue::Float(0.0),
        SavedKey::Bool => IValue::Bool(false),
        SavedKey::None => IValue::None,
        SavedKey::Str => IValue::str(""),
        SavedKey::DType => IValue::DType(DType::Float32),
        SavedKey::List => IValue::list(Vec::new()),
        SavedKey::Tuple(items) => IValue::tuple(items.iter().map(example_value).collect()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_values::{t, vals};

    const SRC: &str = "import torch\nfrom torch import Tensor\nfrom typing import List, Tuple\n\nEPS = 0.5\n\n\ndef helper(x: Tensor) -> Tensor:\n    return x + EPS\n\n\ndef f(x: Tensor, n: int = 2, scale: float = 1.0) -> Tensor:\n    return helper(x) * n * scale\n\n\ndef pick(x: Tensor, i: int) -> Tensor:\n    return x[i]\n\n\ndef pair(xs: List[float], t: Tuple[int, bool]) -> Tuple[float, int]:\n    return xs[0], t[0]\n";

    fn script(name: &str) -> Function {
        Function::script(&Source::new("m.py", SRC), name, &CompileOptions::default())
            .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn numpy_style_parameters_take_their_arguments_types() {
        // One source each (as the Python package gives a function with only what it uses): a
        // whole module compiles every function, and `count`'s `range(n)` needs `n: int`.
        const SCALE: &str = "import numpy as np\n\n\ndef scale(a, k):\n    out = np.empty_like(a)\n    for i in range(a.shape[0]):\n        out[i] = a[i] * k\n    return out\n";
        const COUNT: &str = "import numpy as np\n\n\ndef count(n, step):\n    s = 0\n    for i in range(0, n, step):\n        s += i\n    return s\n";
        let f = |src: &str, name: &str| {
            Function::script(&Source::new("k.py", src), name, &CompileOptions::default())
                .unwrap_or_else(|e| panic!("{e}"))
        };
        let count = f(COUNT, "count");
        // With a tensor for `n` it does not compile: the error says why.
        let e = count
            .call(vec![t(&[1.0]), Value::Int(1)], vec![])
            .unwrap_err();
        assert!(
            e.to_string().contains("`range` argument must be an `int`"),
            "{e}"
        );
        let int = |v: Value| match v {
            Value::Int(i) => i,
            other => panic!("not an int: {other:?}"),
        };
        assert_eq!(
            int(count
                .call(vec![Value::Int(10), Value::Int(3)], vec![])
                .unwrap()),
            18
        );
        // Keywords too, and a second call reuses the version compiled for (int, int).
        let kw = vec![("step".to_string(), Value::Int(2))];
        assert_eq!(int(count.call(vec![Value::Int(5)], kw).unwrap()), 6);
        let scale = f(SCALE, "scale");
        let a: Value = t(&[1.0, -2.0]);
        for (k, want) in [
            (Value::Int(3), [3.0f32, -6.0]),
            (Value::Float(0.5), [0.5, -1.0]),
        ] {
            let Value::Tensor(r) = scale.call(vec![a.clone(), k], vec![]).unwrap() else {
                panic!("not a tensor")
            };
            assert_eq!(r.to_vec::<f32>(), want);
        }
        let sigs = scale.signatures();
        assert!(
            sigs.iter().any(|s| s.contains("int")) && sigs.iter().any(|s| s.contains("float")),
            "{sigs:?}"
        );
        // A tensor for an argument-typed parameter keeps TorchScript's rule (a Tensor).
        let k0 = Value::Tensor(Tensor::from_vec(vec![2.0f32], &[]).unwrap());
        assert_eq!(vals(&scale.call(vec![a, k0], vec![]).unwrap()), [2.0, -4.0]);
    }

    #[test]
    fn bounded_time_is_known_once_compiled_and_only_without_loops_calls_or_kernels() {
        const B: &str = "import torch\nfrom torch import Tensor\n\n\ndef ident(n: int) -> int:\n    return n\n\n\ndef branch(n: int, x: float) -> float:\n    if n > 2:\n        return x * 2.0\n    return x - 1.0\n\n\ndef first(x: Tensor) -> Tensor:\n    return x\n\n\ndef total(n: int) -> int:\n    s = 0\n    for i in range(n):\n        s += i\n    return s\n\n\ndef bump(x: Tensor) -> Tensor:\n    return x + 1\n";
        let cases = [
            ("ident", vec![Value::Int(3)], true),
            ("branch", vec![Value::Int(3), Value::Float(1.5)], true),
            ("first", vec![t(&[1.0, 2.0])], true),
            ("total", vec![Value::Int(10)], false),
            ("bump", vec![t(&[1.0, 2.0])], false),
        ];
        for (name, args, bounded) in cases {
            let f = Function::script(&Source::new("b.py", B), name, &CompileOptions::default())
                .unwrap_or_else(|e| panic!("{e}"));
            let call = f.prepare(args.clone(), vec![]).unwrap();
            // Nothing is compiled before the first call: not known to be bounded yet.
            assert!(!call.runs_in_bounded_time(), "{name} before compiling");
            let first = call.run(&mut Vec::new()).unwrap();
            let call = f.prepare(args.clone(), vec![]).unwrap();
            assert_eq!(call.runs_in_bounded_time(), bounded, "{name}");
            let again = call.run(&mut Vec::new()).unwrap();
            assert_eq!(format!("{first:?}"), format!("{again:?}"), "{name}");
        }
    }

    #[test]
    fn functions_are_send_and_sync() {
        fn shareable<T: Send + Sync>() {}
        shareable::<Function>();
        shareable::<Value>();
        shareable::<Error>();
    }

    #[test]
    fn script_call_with_defaults_keywords_and_widening() {
        let f = script("f");
        assert_eq!(vals(&f.call(vec![t(&[1.0])], vec![]).unwrap()), vec![3.0]);
        let r = f
            .call(
                vec![t(&[1.0])],
                vec![("scale".into(), Value::Int(2)), ("n".into(), Value::Int(1))],
            )
            .unwrap();
        assert_eq!(vals(&r), vec![3.0]);
        assert_eq!(f.param_names().unwrap(), ["x", "n", "scale"]);
        assert_eq!(f.signatures().len(), 1);
        let p = script("pair");
        let r = p
            .call(
                vec![
                    Value::List(vec![Value::Float(2.5), Value::Int(1)]),
                    Value::Tuple(vec![Value::Int(7), Value::Bool(true)]),
                ],
                vec![],
            )
            .unwrap();
        assert!(
            matches!(&r, Value::Tuple(v) if matches!(v[..], [Value::Float(a), Value::Int(7)] if a == 2.5)),
            "{r:?}"
        );
    }

    #[test]
    fn argument_errors_name_the_parameter() {
        let f = script("f");
        let e = f.call(vec![Value::Int(1)], vec![]).unwrap_err();
        assert_eq!(e.python_class(), "RuntimeError");
        assert!(e.to_string().contains("for argument 'x'"), "{e}");
        let e = f.call(vec![], vec![]).unwrap_err();
        assert!(
            e.to_string().contains("missing value for argument 'x'"),
            "{e}"
        );
        let e = f
            .call(vec![t(&[1.0])], vec![("m".into(), Value::Int(1))])
            .unwrap_err();
        assert!(
            e.to_string().contains("unexpected keyword argument 'm'"),
            "{e}"
        );
        let e = f
            .call(
                vec![t(&[1.0]), Value::Int(1)],
                vec![("n".into(), Value::Int(1))],
            )
            .unwrap_err();
        assert!(e.to_string().contains("multiple values"), "{e}");
        let e = f
            .call(
                vec![t(&[1.0]), Value::Int(1), Value::Int(1), Value::Int(1)],
                vec![],
            )
            .unwrap_err();
        assert!(e.to_string().contains("at most 3"), "{e}");
    }

    #[test]
    fn scalar_functions_take_the_stack_slot_path_with_the_same_results_and_errors() {
        let src = Source::new(
            "s.py",
            "def f(a: int, x: float, b: bool) -> float:\n    if b:\n        return x / float(a)\n    return x * float(a)\n",
        );
        let f = Function::script(&src, "f", &CompileOptions::default()).unwrap();
        let call = |args: Vec<Value>| f.call(args, vec![]);
        let float = |v: Result<Value, Error>| match v {
            Ok(Value::Float(x)) => x,
            other => panic!("{other:?}"),
        };
        // First calls compile and set the fast path; later ones take it.
        for _ in 0..3 {
            assert_eq!(
                float(call(vec![
                    Value::Int(4),
                    Value::Float(2.0),
                    Value::Bool(true)
                ])),
                0.5
            );
        }
        assert!(f.fast.get().is_some_and(|p| p.scalars));
        // An int for the float parameter widens, on the fast path as on the general one.
        assert_eq!(
            float(call(vec![Value::Int(4), Value::Int(3), Value::Bool(false)])),
            12.0
        );
        // A run-time error on the fast path: Python's class, the source line.
        let e = call(vec![Value::Int(0), Value::Float(1.0), Value::Bool(true)]).unwrap_err();
        assert_eq!(e.python_class(), "ZeroDivisionError");
        assert!(e.to_string().contains("s.py:3:"), "{e}");
        // Arguments that do not match the fast path: the general path's checks.
        let e = call(vec![
            Value::Float(1.0),
            Value::Float(1.0),
            Value::Bool(true),
        ])
        .unwrap_err();
        assert!(e.to_string().contains("for argument 'a'"), "{e}");
        let e = call(vec![Value::Int(1), Value::Float(1.0)]).unwrap_err();
        assert!(
            e.to_string().contains("missing value for argument 'b'"),
            "{e}"
        );
        assert_eq!(
            float(f.call(
                vec![Value::Int(2), Value::Float(3.0)],
                vec![("b".into(), Value::Bool(false))]
            )),
            6.0
        );
    }

    #[test]
    fn run_errors_carry_the_class_and_the_real_line() {
        let src = Source::new("big.py", "\ndef pick(x, i: int):\n    return x[i]\n").at_line(40);
        let f = Function::script(&src, "pick", &CompileOptions::default()).unwrap();
        let e = f.call(vec![t(&[1.0]), Value::Int(5)], vec![]).unwrap_err();
        assert_eq!(e.python_class(), "IndexError");
        let text = e.to_string();
        assert!(text.contains("big.py:42:"), "{text}");
        assert!(text.contains("return x[i]"), "{text}");
    }

    #[test]
    fn compile_errors_render_every_diagnostic() {
        let src = Source::new(
            "bad.py",
            "def g(x):\n    return y\n\ndef h(x):\n    return z\n",
        )
        .at_line(10);
        let e = Function::script(&src, "g", &CompileOptions::default())
            .err()
            .expect("does not compile");
        let Error::Compile(d) = &e else {
            panic!("{e:?}")
        };
        assert_eq!(d.len(), 2, "{d:?}");
        assert!(d[0].contains("bad.py:11:"), "{}", d[0]);
        assert!(d[1].contains("bad.py:14:"), "{}", d[1]);
        assert_eq!(e.python_class(), "CompileError");
        let e = Function::script(
            &Source::new("m.py", SRC),
            "nope",
            &CompileOptions::default(),
        )
        .err()
        .unwrap();
        assert_eq!(e.python_class(), "ValueError");
    }

    #[test]
    fn inspection_shows_generic_and_specialized_ir_and_asm() {
        let f = script("f");
        assert!(f.graph().contains("func @f"), "{}", f.graph());
        let ir = f.inspect_ir(vec![t(&[1.0])], vec![]).unwrap();
        assert!(ir.contains("Tensor[float32, 1]"), "{ir}");
        let asm = f.inspect_asm(vec![t(&[1.0])], vec![]).unwrap();
        assert!(asm.contains("; function"), "{asm}");
    }

    #[test]
    fn traced_functions_guard_and_check_inputs() {
        let src = Source::new(
            "c.py",
            "def cond(x, th: float):\n    if x.sum() > th:\n        return x * 2\n    return x + 1\n",
        );
        let f = Function::trace(
            &src,
            "cond",
            vec![t(&[1.0, 2.0]), Value::Float(0.0)],
            &TraceConfig::default(),
        )
        .unwrap();
        assert!(f.is_traced());
        assert!(f.graph().contains("guard"), "{}", f.graph());
        let r = f
            .call(vec![t(&[-1.0, -2.0]), Value::Int(0)], vec![])
            .unwrap();
        assert_eq!(vals(&r), vec![0.0, -1.0], "re-traced on the other branch");
        assert!(
            f.inspect_ir(vec![t(&[1.0, 2.0]), Value::Float(0.0)], vec![])
                .is_ok()
        );
        assert!(!f.warnings().is_empty());
        let checked = Function::trace(
            &src,
            "cond",
            vec![t(&[1.0, 2.0]), Value::Float(0.0)],
            &TraceConfig {
                check_inputs: vec![vec![t(&[-1.0, -2.0]), Value::Float(0.0)]],
                ..TraceConfig::default()
            },
        );
        let e = checked.err().expect("diverges");
        assert_eq!(e.python_class(), "TracingCheckError");
    }

    #[test]
    fn save_and_load_round_trip_with_signatures() {
        let f = script("f");
        f.call(vec![t(&[1.0])], vec![]).unwrap();
        let bytes = f.save().unwrap();
        let g = Function::load(&bytes, &CompileOptions::default()).unwrap();
        assert_eq!(
            g.signatures(),
            f.signatures(),
            "saved signatures compiled on load"
        );
        assert_eq!(vals(&g.call(vec![t(&[1.0])], vec![]).unwrap()), vec![3.0]);
        assert_eq!(g.graph(), f.graph());
        // The source is what is compiled: an altered IR section is refused...
        let text = String::from_utf8(bytes.clone()).unwrap();
        let altered = crate::archive::Archive {
            ir: "func @f() {}\n".into(),
            ..crate::archive::Archive::from_bytes(text.as_bytes()).unwrap()
        };
        let e = Function::load(&altered.to_bytes(), &CompileOptions::default())
            .err()
            .unwrap();
        assert_eq!(e.python_class(), "ArchiveError");
        assert!(e.to_string().contains("altered"), "{e}");
        // ...and a corrupt one never loads.
        let e = Function::load(&bytes[..bytes.len() / 2], &CompileOptions::default())
            .err()
            .unwrap();
        assert_eq!(e.python_class(), "ArchiveError");
        let traced = Function::trace(
            &Source::new("m.py", SRC),
            "helper",
            vec![t(&[1.0])],
            &TraceConfig::default(),
        )
        .unwrap();
        assert!(traced.save().is_err());
    }

    /// `CompileOptions::num_threads` sets the runtime's kernel pool; results do not change.
    #[test]
    fn num_threads_option_sets_the_kernel_pool() {
        let big: Vec<f32> = (0..300_000).map(|i| (i % 977) as f32 * 0.01).collect();
        let mut out = Vec::new();
        for n in [1usize, 3, 0] {
            let opts = CompileOptions {
                num_threads: Some(n),
                ..CompileOptions::default()
            };
            let f = Function::script(&Source::new("m.py", SRC), "f", &opts).unwrap();
            if n > 0 {
                assert_eq!(pyjit_runtime::ops::vmath::num_threads(), n);
            }
            out.push(vals(&f.call(vec![t(&big)], vec![]).unwrap()));
        }
        assert_eq!(out[0], out[1]);
        assert_eq!(out[0], out[2]);
    }

    #[test]
    fn the_disk_cache_is_used_and_bad_entries_are_recompiled() {
        let dir = std::env::temp_dir().join(format!("pyjit-api-cache-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let opts = CompileOptions {
            cache_dir: Some(dir.clone()),
            ..CompileOptions::default()
        };
        let make = |src: &str| Function::script(&Source::new("m.py", src), "f", &opts).unwrap();
        let run = |f: &Function| vals(&f.call(vec![t(&[1.0])], vec![]).unwrap());
        let a = make(SRC);
        assert_eq!((run(&a), a.cache_hits()), (vec![3.0], 0));
        let entries = || std::fs::read_dir(&dir).unwrap().count();
        assert_eq!(entries(), 1);
        // A new program of the same source hits, and computes the same.
        let b = make(SRC);
        assert_eq!((run(&b), b.cache_hits()), (vec![3.0], 1));
        // Another source is another key.
        let other = SRC.replace("EPS = 0.5", "EPS = 1.5");
        let c = make(&other);
        assert_eq!((run(&c), c.cache_hits()), (vec![5.0], 0));
        assert_eq!(entries(), 2);
        // A corrupt entry is never used: recompiled and rewritten.
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            let mut bytes = std::fs::read(&p).unwrap();
            let n = bytes.len() / 2;
            bytes[n] ^= 1;
            std::fs::write(&p, bytes).unwrap();
        }
        let d = make(SRC);
        assert_eq!((run(&d), d.cache_hits()), (vec![3.0], 0));
        let e = make(SRC);
        assert_eq!((run(&e), e.cache_hits()), (vec![3.0], 1), "rewritten");
        // fastmath is another key: the same source compiles to other IR.
        let fast = |fastmath| {
            let o = CompileOptions {
                fastmath,
                ..opts.clone()
            };
            let src = "import torch\n\ndef f(x: torch.Tensor) -> torch.Tensor:\n    return torch.tanh(x)\n";
            Function::script(&Source::new("t.py", src), "f", &o).unwrap()
        };
        let xs: Vec<f32> = (0..2000).map(|i| i as f32 * 0.005 - 5.0).collect();
        let x = || vec![t(&xs)];
        let exact = fast(false);
        let want = vals(&exact.call(x(), vec![]).unwrap());
        let f = fast(true);
        let got = vals(&f.call(x(), vec![]).unwrap());
        assert_eq!(f.cache_hits(), 0, "the exact entry is not the fast one");
        assert!(f.inspect_ir(x(), vec![]).unwrap().contains("tanh_fast"));
        assert_ne!(got, want);
        let again = fast(true);
        assert_eq!(vals(&again.call(x(), vec![]).unwrap()), got);
        assert_eq!(again.cache_hits(), 1);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn one_function_called_from_many_threads() {
        let f = script("f");
        std::thread::scope(|s| {
            for k in 0..4 {
                let f = &f;
                s.spawn(move || {
                    for _ in 0..20 {
                        let r = f.call(vec![t(&[k as f32])], vec![]).unwrap();
                        assert_eq!(vals(&r), vec![(k as f32 + 0.5) * 2.0]);
                    }
                });
            }
        });
        assert_eq!(f.signatures().len(), 1, "one shared cache entry");
    }

    /// `fastmath`: float32 `tanh` (only) takes the fast kernel, in native code and in the
    /// interpreter alike (bit for bit, fused or not), in scripted and traced functions; the IR
    /// says so; an archive keeps the mode.
    #[test]
    fn fastmath_changes_float32_tanh_only_and_every_backend_agrees() {
        const FM: &str = "import torch\nfrom torch import Tensor\n\n\ndef g(x: Tensor, y: Tensor) -> Tensor:\n    a = torch.tanh(x * 2.0 + y) * torch.sigmoid(y) - 0.5 * x\n    return a + x.tanh() + torch.exp(y * 0.1)\n";
        let xs: Vec<f32> = (0..3000).map(|i| (i as f32 - 1500.0) * 0.0071).collect();
        let ys: Vec<f32> = xs.iter().rev().map(|v| v * 0.5 - 0.25).collect();
        let args = |f64s: bool| -> Vec<Value> {
            [&xs, &ys]
                .into_iter()
                .map(|v| {
                    let t = Tensor::from_slice(v);
                    Value::Tensor(if f64s {
                        t.to_dtype(DType::Float64).unwrap()
                    } else {
                        t
                    })
                })
                .collect()
        };
        let bits = |v: Value| -> Vec<u64> {
            let t = v
                .as_tensor()
                .expect("a tensor")
                .to_dtype(DType::Float64)
                .unwrap();
            t.to_vec::<f64>().into_iter().map(f64::to_bits).collect()
        };
        let compile = |backend, fastmath, opt_level| {
            let o = CompileOptions {
                backend,
                fastmath,
                opt_level,
                ..CompileOptions::default()
            };
            Function::script(&Source::new("fm.py", FM), "g", &o).unwrap_or_else(|e| panic!("{e}"))
        };
        let run = |f: &Function, f64s: bool| bits(f.call(args(f64s), vec![]).unwrap());
        let exact = compile(Backend::Native, false, OptLevel::O2);
        let fast = compile(Backend::Native, true, OptLevel::O2);
        assert!(
            fast.graph().contains("tensor.tanh_fast("),
            "{}",
            fast.graph()
        );
        assert!(!fast.graph().contains("tensor.tanh("), "{}", fast.graph());
        assert!(!exact.graph().contains("tanh_fast"));
        // Fused at -O2 (one group), unfused at -O0, in the interpreter: the same bits.
        let ir = fast
            .inspect_ir(args(false), vec![])
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(
            ir.contains("fused(") && ir.contains("tensor.tanh_fast("),
            "{ir}"
        );
        let want = run(&fast, false);
        for (backend, level) in [
            (Backend::Interp, OptLevel::O0),
            (Backend::Interp, OptLevel::O2),
            (Backend::Native, OptLevel::O0),
        ] {
            assert_eq!(
                run(&compile(backend, true, level), false),
                want,
                "{backend:?} {level}"
            );
        }
        // float32 results move (by a few ulp), float64 ones do not.
        assert_ne!(run(&exact, false), want);
        assert_eq!(run(&exact, true), run(&fast, true));
        // An archive keeps the mode: loaded with the default options, still fast.
        let _ = fast.call(args(false), vec![]).unwrap();
        let bytes = fast.save().unwrap();
        let loaded = Function::load(&bytes, &CompileOptions::default()).unwrap();
        assert_eq!(loaded.graph(), fast.graph());
        assert_eq!(run(&loaded, false), want);
        let plain = Function::load(
            &exact.save().unwrap(),
            &CompileOptions {
                fastmath: true,
                ..CompileOptions::default()
            },
        )
        .unwrap();
        assert_eq!(run(&plain, false), run(&exact, false));
        // Traced: the same fast kernel.
        let traced = |fastmath| {
            let config = TraceConfig {
                compile: CompileOptions {
                    fastmath,
                    ..CompileOptions::default()
                },
                ..TraceConfig::default()
            };
            Function::trace(&Source::new("fm.py", FM), "g", args(false), &config)
                .unwrap_or_else(|e| panic!("{e}"))
        };
        assert_eq!(run(&traced(true), false), want);
        assert_eq!(run(&traced(false), false), run(&exact, false));
    }
}
