//! [`Program`]: a compiled source file and the call API.

use pyjit_interp::{CallSite, Config, InterpError, Interpreter, Value};
use pyjit_ir::{EntityRef, FuncId, Module, Type};
use pyjit_opt::manager::{OptLevel, PassReport, PipelineConfig, run_pipeline, run_pipeline_from};
use pyjit_runtime::DType;
use pyjit_syntax::{Diagnostic, SourceFile, Span};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use std::fmt;
use std::io::Write;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Which engine runs a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Backend {
    /// The reference interpreter of the IR.
    #[default]
    Interp,
    /// Cranelift-compiled machine code, compiled on the first call per [`Signature`].
    Native,
}

impl Backend {
    /// The name `--backend` takes (`interp`, `native`).
    pub fn name(self) -> &'static str {
        match self {
            Backend::Interp => "interp",
            Backend::Native => "native",
        }
    }
}

/// How a [`Program`] runs its calls.
#[derive(Clone, Debug)]
pub struct Options {
    /// What runs the calls.
    pub backend: Backend,
    /// Interpreter settings (recursion limit).
    pub interp: Config,
    /// Interpreter only: run the IR specialized for each call's [`Signature`] (cached like
    /// native code) and check every value against its refined type — the soundness check of
    /// specialization (and of the passes that follow it).
    pub specialize: bool,
    /// With `specialize`: specialize for the arguments' exact shapes too (per call, uncached),
    /// so that the shape facts specialization derives are checked as well.
    pub specialize_dims: bool,
    /// The optimization pipeline (`-O0/-O1/-O2`, `--passes`, …), run on each specialization
    /// before a backend sees it. Default `-O2`. The interpreter runs the generic, unoptimized
    /// IR (the oracle) only when the pipeline is empty (`-O0`) and `specialize` is off; with
    /// passes to run it runs the optimized specialization, cached per signature like native
    /// code.
    pub opt: PipelineConfig,
    /// Native backend: the on-disk cache of optimized specializations ([`crate::cache`]), off
    /// by default.
    pub cache: Option<crate::cache::CodeCache>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            backend: Backend::default(),
            interp: Config::default(),
            specialize: false,
            specialize_dims: false,
            opt: PipelineConfig::for_level(OptLevel::O2),
            cache: None,
        }
    }
}

impl Options {
    /// The default options at optimization level `level`.
    pub fn at_level(level: OptLevel) -> Options {
        Options {
            opt: PipelineConfig::for_level(level),
            ..Options::default()
        }
    }

    /// Whether calls run through specialization (and the pipeline) rather than the generic IR.
    fn specializes(&self) -> bool {
        self.backend == Backend::Native || self.specialize || !self.opt.pass_names().is_empty()
    }
}

/// Frontend compile times of a [`Program`] (`pyjit run --time`).
#[derive(Clone, Copy, Debug, Default)]
pub struct FrontendTimes {
    /// Lexing and parsing to the AST.
    pub parse: Duration,
    /// AST → IR (scripting), default values, IR verification.
    pub frontend: Duration,
}

/// One specialization made for a call signature: what it cost and what the passes did.
#[derive(Clone, Debug)]
pub struct Compilation {
    /// The function called.
    pub function: String,
    /// The signature it was specialized for (the cache key).
    pub signature: Signature,
    /// The backend it was compiled for.
    pub backend: Backend,
    /// Signature specialization (type refinement), verifier included.
    pub specialize: Duration,
    /// The optimization pipeline's report: per-pass statistics, timings, requested IR dumps
    /// and a verifier failure, if any (a compiler bug; the failing pass was undone).
    pub passes: PassReport,
    /// Native only: where code generation's time went (IR → Cranelift IR, Cranelift).
    pub codegen: Option<pyjit_codegen::CompileTimes>,
    /// Whether the specialized IR came from the on-disk cache (then `specialize` is the time to
    /// read it and `passes` is empty).
    pub cached: bool,
}

/// The part of a call signature that specialization and the code cache are keyed by: for a
/// tensor its dtype and rank; for every other value its kind (containers recursively).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ArgKey {
    /// A tensor: its element type and number of dimensions (the sizes are not part of the key).
    Tensor {
        /// The element type.
        dtype: DType,
        /// The number of dimensions.
        rank: u32,
    },
    /// Any other single value, keyed by its IR type: `int`, `float`, `bool`, `None` (for an
    /// `Optional` parameter), `str`, `dtype`, or `Index` (a slice or index object passed as a
    /// value).
    Scalar(Type),
    /// A tuple, keyed element by element.
    Tuple(Vec<ArgKey>),
    /// A list, keyed by its declared element type (elements of one list may differ in rank).
    List(Type),
}

/// The key of one call: one [`ArgKey`] per argument.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Signature(pub SmallVec<[ArgKey; 4]>);

impl Signature {
    /// The signature of `args` passed to parameters of types `params`.
    pub fn of(args: &[Value], params: &[Type]) -> Signature {
        Signature(
            args.iter()
                .zip(params)
                .map(|(a, t)| ArgKey::of(a, t))
                .collect(),
        )
    }

    /// Whether `args` passed to the parameters of `f` have this signature (without building
    /// theirs).
    fn matches_params(&self, args: &[Value], f: &pyjit_ir::Function) -> bool {
        self.0.len() == args.len()
            && self
                .0
                .iter()
                .zip(args)
                .zip(f.params())
                .all(|((k, a), &p)| k.matches(a, f.value_type(p)))
    }

    /// The signature of `args` passed to the parameters of `f` (without copying their types).
    fn of_params(args: &[Value], f: &pyjit_ir::Function) -> Signature {
        Signature(
            args.iter()
                .zip(f.params())
                .map(|(a, &p)| ArgKey::of(a, f.value_type(p)))
                .collect(),
        )
    }
}

impl ArgKey {
    /// Whether `v` passed where type `declared` is expected has this key: `ArgKey::of(v,
    /// declared) == *self`, without building the key for scalars and tensors.
    pub fn matches(&self, v: &Value, declared: &Type) -> bool {
        match (self, v) {
            (ArgKey::Tensor { dtype, rank }, Value::Tensor(t)) => {
                *dtype == t.dtype() && *rank as usize == t.dim()
            }
            (ArgKey::Scalar(t), v) => scalar_type(v).is_some_and(|s| s == *t),
            (
                ArgKey::Tuple(_) | ArgKey::List(_),
                Value::Tuple(_) | Value::List(_) | Value::Dict(_),
            ) => ArgKey::of(v, declared) == *self,
            _ => false,
        }
    }

    /// The key of value `v` passed where type `declared` is expected.
    pub fn of(v: &Value, declared: &Type) -> ArgKey {
        // An optional parameter holding a value is keyed like the value's own type.
        let declared = match declared {
            Type::Optional(t) => &**t,
            t => t,
        };
        match v {
            Value::Tensor(t) => ArgKey::Tensor {
                dtype: t.dtype(),
                rank: t.dim() as u32,
            },
            Value::Tuple(items) => ArgKey::Tuple(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, x)| {
                        let t = match declared {
                            Type::Tuple(ts) => ts.get(i).cloned().unwrap_or(Type::None),
                            _ => Type::None,
                        };
                        ArgKey::of(x, &t)
                    })
                    .collect(),
            ),
            // Keyed by the declared type (its elements may differ in rank).
            Value::List(_) | Value::Dict(_) => ArgKey::List(declared.clone()),
            // Every value left is a scalar (`scalar_type` answers for all of them).
            v => ArgKey::Scalar(scalar_type(v).unwrap_or(Type::None)),
        }
    }
}

/// The IR type of a single value that is not a tensor or a container.
fn scalar_type(v: &Value) -> Option<Type> {
    Some(match v {
        Value::Int(_) => Type::Int,
        Value::Float(_) => Type::Float,
        Value::Bool(_) => Type::Bool,
        Value::None => Type::None,
        Value::Str(_) => Type::Str,
        Value::DType(_) => Type::DType,
        Value::Index(_) => Type::Index,
        Value::Tensor(_) | Value::Tuple(_) | Value::List(_) | Value::Dict(_) => return None,
    })
}

impl fmt::Display for ArgKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArgKey::Tensor { dtype, rank } => write!(f, "Tensor({}, rank {rank})", dtype.name()),
            ArgKey::Scalar(t) => write!(f, "{t}"),
            ArgKey::Tuple(items) => {
                f.write_str("(")?;
                pyjit_ir::write_comma_separated(f, items)?;
                f.write_str(")")
            }
            ArgKey::List(t) => write!(f, "{t}"),
        }
    }
}

/// A run-time error of a call: the Python exception class, its message, and where in the
/// source it was raised.
#[derive(Clone, Debug)]
pub struct RunError {
    /// The exception: class, message, span and call stack.
    pub error: InterpError,
    source: Arc<SourceFile>,
}

impl RunError {
    /// An error raised while running code of `source`. Function names are the user's (a
    /// specialization is reported under its function's name).
    pub fn new(mut error: InterpError, source: Arc<SourceFile>) -> RunError {
        error.function = user_facing_name(&error.function).to_string();
        for site in &mut error.call_stack {
            site.function = user_facing_name(&site.function).to_string();
        }
        RunError { error, source }
    }

    /// The error as Python prints it: `Traceback (most recent call last):`, one `File "f.py",
    /// line N, in FUNCTION` entry per frame with its source line (and carets under the call or
    /// the failing expression when it is only part of the line), a run of more than three
    /// identical frames shortened as Python does, then `Class: message`.
    pub fn traceback(&self) -> String {
        let mut frames: Vec<(&str, Span)> = self
            .error
            .call_stack
            .iter()
            .rev()
            .map(|c| (c.function.as_str(), c.span))
            .collect();
        frames.push((self.error.function.as_str(), self.error.span));
        let mut out = String::from("Traceback (most recent call last):\n");
        let mut i = 0;
        while i < frames.len() {
            let mut n = 1;
            while i + n < frames.len() && frames[i + n] == frames[i] {
                n += 1;
            }
            for _ in 0..n.min(3) {
                self.frame(&mut out, frames[i].0, frames[i].1);
            }
            if n > 3 {
                out.push_str(&format!(
                    "  [Previous line repeated {} more times]\n",
                    n - 3
                ));
            }
            i += n;
        }
        out.push_str(&format!("{}\n", self.error));
        out
    }

    fn frame(&self, out: &mut String, function: &str, span: Span) {
        let src = &self.source;
        let lc = src.line_col(span.start);
        out.push_str(&format!("  File \"{}\", line {}", src.name, lc.line));
        if !function.is_empty() {
            out.push_str(&format!(", in {function}"));
        }
        out.push('\n');
        let text = src.line_text(lc.line).trim_end();
        let code = text.trim_start();
        if code.is_empty() {
            return;
        }
        out.push_str(&format!("    {code}\n"));
        // Carets under the span's part of the line, unless it is the whole line.
        let indent = text.chars().count() - code.chars().count();
        let start = (lc.col as usize).saturating_sub(1).max(indent);
        let end_lc = src.line_col(span.end);
        let end = if end_lc.line == lc.line {
            (end_lc.col as usize).saturating_sub(1)
        } else {
            text.chars().count()
        }
        .min(text.chars().count());
        if end > start && (start > indent || end < text.chars().count()) {
            out.push_str(&format!(
                "    {}{}\n",
                " ".repeat(start - indent),
                "^".repeat(end - start)
            ));
        }
    }

    /// The Python exception class (`RuntimeError`, `IndexError`, ...).
    pub fn kind(&self) -> &str {
        self.error.kind.name()
    }

    /// The exception's message, as PyTorch words it.
    pub fn message(&self) -> &str {
        &self.error.message
    }

    /// The source span of the op that raised.
    pub fn span(&self) -> Span {
        self.error.span
    }

    /// The calls that led to the failing op, outermost first (the traceback's frames).
    pub fn call_stack(&self) -> &[CallSite] {
        &self.error.call_stack
    }

    /// `file:line:col` of the failing op.
    pub fn location(&self) -> String {
        self.source.location(self.error.span)
    }

    /// The error as a [`Diagnostic`] (error class and message at the failing op's span).
    pub fn diagnostic(&self) -> Diagnostic {
        self.error.to_diagnostic()
    }

    /// What `pyjit run` prints: the [`traceback`](Self::traceback), then the diagnostic with
    /// the exact location (`file:line:col`) and a caret under the failing op.
    pub fn render(&self) -> String {
        format!("{}\n{}", self.traceback(), self.error.render(&self.source))
    }
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (at {})", self.error, self.location())
    }
}

impl std::error::Error for RunError {}

/// Why a call did not produce a value.
#[derive(Debug)]
pub enum CallError {
    /// No function of that name; carries the names that exist.
    UnknownFunction {
        /// The name asked for.
        name: String,
        /// The functions the program defines.
        available: Vec<String>,
    },
    /// The arguments do not fit the parameters (count or type); the message names the parameter.
    BadArguments(String),
    /// The chosen backend cannot run this call.
    Unsupported(String),
    /// Specialization failed for this call's signature (a compiler bug).
    Specialize(String),
    /// Native code generation failed for this call's signature (a compiler bug or a construct
    /// the native backend does not support yet); the message says which.
    Codegen(String),
    /// The program raised.
    Run(RunError),
}

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CallError::UnknownFunction { name, available } => write!(
                f,
                "no function `{name}` in this file; it defines: {}",
                available.join(", ")
            ),
            CallError::BadArguments(m) | CallError::Unsupported(m) => f.write_str(m),
            CallError::Codegen(m) => write!(f, "native code generation failed: {m}"),
            CallError::Specialize(m) => write!(f, "specialization failed: {m}"),
            CallError::Run(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for CallError {}

impl From<RunError> for CallError {
    fn from(e: RunError) -> CallError {
        CallError::Run(e)
    }
}

/// What was made for each function and call signature, or why it could not be made (cached
/// too, so a failure is reported rather than retried on every call).
type SignatureCache<T> = Mutex<FxHashMap<(FuncId, Signature), Result<T, String>>>;

/// A compiled source file: its verified generic IR and the source its spans point into.
pub struct Program {
    source: Arc<SourceFile>,
    module: Module,
    options: Options,
    /// Per function (in [`FuncId`] order), per parameter: the default value, when the source
    /// gives one that is a compile-time constant.
    defaults: Vec<Vec<Option<Value>>>,
    /// The native code cache: one compiled specialization per function and call signature
    /// (Numba's dispatcher). A failed compilation is cached too, so it is reported, not retried.
    native: SignatureCache<pyjit_codegen::NativeFunction>,
    /// Per function (in [`FuncId`] order): its first natively compiled specialization, set once
    /// and read without a lock — a function called with one signature (the common case) finds
    /// its code here by comparing the call's signature, without hashing or locking.
    native_first: Vec<OnceLock<(Signature, pyjit_codegen::NativeFunction)>>,
    /// Specialized (and optimized) IR per function and signature, for the interpreter.
    specialized: SignatureCache<Arc<(Module, FuncId)>>,
    times: FrontendTimes,
    /// Every specialization made so far, in order (`--time`, `--print-after`, …).
    compilations: Mutex<Vec<Compilation>>,
}

impl Program {
    /// Parses, scripts and verifies `source`. Errors are diagnostics to render against it.
    /// Parses and scripts `source` with the default [`Options`] (interpreter, `-O2`); every
    /// function of the file is checked now, so errors come back as diagnostics before any call.
    pub fn compile(source: SourceFile) -> Result<Program, Vec<Diagnostic>> {
        Program::compile_with(source, Options::default())
    }

    /// [`Program::compile`] with the given options (backend, optimization pipeline, ...).
    pub fn compile_with(source: SourceFile, options: Options) -> Result<Program, Vec<Diagnostic>> {
        Program::compile_typed(source, options, None)
    }

    /// [`Program::compile_with`] for calls of function `name` (`None`: the file's only function)
    /// with arguments like `args`: in a
    /// NumPy-style module (`import numpy as np`, no torch) an unannotated parameter of `name`
    /// without a default takes the type of its argument when that is an `int`, `float` or
    /// `bool` (Numba's rule: `def f(n)` called with `1000` has `n: int`); tensors and every
    /// other value keep the parameter's own rule. In a torch-style module this is
    /// [`Program::compile_with`]. The program serves calls whose scalar arguments have these
    /// types (a call with others reports the misfit), so a caller keeps one program per such
    /// signature, as Numba's dispatcher keeps one specialization per signature.
    pub fn compile_for_call(
        source: SourceFile,
        options: Options,
        name: Option<&str>,
        args: &[Value],
    ) -> Result<Program, Vec<Diagnostic>> {
        let types = args
            .iter()
            .map(|a| match a {
                Value::Int(_) => Some(Type::Int),
                Value::Float(_) => Some(Type::Float),
                Value::Bool(_) => Some(Type::Bool),
                _ => None,
            })
            .collect();
        Program::compile_typed(source, options, Some((name, types)))
    }

    fn compile_typed(
        source: SourceFile,
        options: Options,
        call: Option<(Option<&str>, Vec<Option<Type>>)>,
    ) -> Result<Program, Vec<Diagnostic>> {
        let t = Instant::now();
        let ast = pyjit_syntax::parse_module(&source)?;
        let parse = t.elapsed();
        let t = Instant::now();
        let arg_types: pyjit_script::ArgTypes = call
            .and_then(|(name, types)| {
                let name = match name {
                    Some(n) => n.to_string(),
                    None => match pyjit_script::function_names(&ast).as_slice() {
                        [only] => only.clone(),
                        _ => return None,
                    },
                };
                Some((name, types))
            })
            .into_iter()
            .collect();
        let (ast, mut module) = match pyjit_script::script_module_typed(&source, &ast, &arg_types) {
            Ok(m) => (ast, m),
            Err(errors) => match without_failing_helpers(&source, &ast, &arg_types, &errors) {
                Some(found) => found,
                None => return Err(errors),
            },
        };
        let defaults = default_values(&ast, &module);
        let source = Arc::new(source);
        if module.source.is_none() {
            module.source = Some(source.clone());
        }
        if let Err(errors) = pyjit_ir::verify_module(&module) {
            // Scripted IR that fails verification is a frontend bug; report it at the op rather
            // than run it.
            return Err(errors
                .into_iter()
                .map(|e| {
                    Diagnostic::error(format!("internal error: invalid IR produced: {e}"))
                        .with_primary(e.span, "while compiling this")
                })
                .collect());
        }
        let times = FrontendTimes {
            parse,
            frontend: t.elapsed(),
        };
        Ok(Program::assemble(source, module, options, defaults, times))
    }

    /// A program of verified `module` with empty caches.
    fn assemble(
        source: Arc<SourceFile>,
        mut module: Module,
        options: Options,
        defaults: Vec<Vec<Option<Value>>>,
        times: FrontendTimes,
    ) -> Program {
        if options.opt.fastmath {
            pyjit_opt::lower_fastmath(&mut module);
        }
        let native_first = first_slots(&module);
        Program {
            source,
            module,
            native_first,
            options,
            defaults,
            native: Mutex::new(FxHashMap::default()),
            specialized: Mutex::new(FxHashMap::default()),
            times,
            compilations: Mutex::new(Vec::new()),
        }
    }

    /// A program made from IR instead of source — a trace's module (`pyjit_trace::Trace`) — so
    /// that it runs through the same per-signature specialization and native code cache as
    /// scripted functions. Spans point into `module.source` (an empty file when it has none);
    /// parameters have no defaults. The module is verified first.
    pub fn from_module(module: Module, options: Options) -> Result<Program, Vec<Diagnostic>> {
        if let Err(errors) = pyjit_ir::verify_module(&module) {
            return Err(errors
                .into_iter()
                .map(|e| Diagnostic::error(format!("invalid IR: {e}")).with_primary(e.span, "here"))
                .collect());
        }
        let source = module
            .source
            .clone()
            .unwrap_or_else(|| Arc::new(SourceFile::new("<ir>", "")));
        Ok(Program::assemble(
            source,
            module,
            options,
            Vec::new(),
            FrontendTimes::default(),
        ))
    }

    /// The source file the program was compiled from.
    pub fn source(&self) -> &SourceFile {
        &self.source
    }

    /// The generic (unspecialized) IR.
    pub fn module(&self) -> &Module {
        &self.module
    }

    /// The options calls run with.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Switches the backend for the calls from now on (each backend keeps its own cache).
    pub fn set_backend(&mut self, backend: Backend) {
        self.options.backend = backend;
    }

    /// Sets the optimization pipeline for specializations made from now on (those already
    /// cached keep theirs). Its `fastmath` is not read here: the module was built with or
    /// without the fast forms when the program was made.
    pub fn set_opt(&mut self, opt: PipelineConfig) {
        self.options.opt = opt;
    }

    /// How long parsing and scripting took (zero for [`Program::from_module`]).
    pub fn frontend_times(&self) -> FrontendTimes {
        self.times
    }

    /// Every specialization compiled so far, in order: timings and pass reports.
    pub fn compilations(&self) -> Vec<Compilation> {
        self.compilations
            .lock()
            .map(|c| c.clone())
            .unwrap_or_else(|p| p.into_inner().clone())
    }

    /// The functions of the file, in source order.
    pub fn function_names(&self) -> Vec<&str> {
        self.module
            .funcs
            .values()
            .map(|f| f.name.as_str())
            .collect()
    }

    fn func_id(&self, name: &str) -> Result<FuncId, CallError> {
        self.module
            .function_by_name(name)
            .ok_or_else(|| CallError::UnknownFunction {
                name: name.to_string(),
                available: self
                    .function_names()
                    .iter()
                    .map(|s| s.to_string())
                    .collect(),
            })
    }

    /// Parameter names and declared types of function `name`.
    pub fn params(&self, name: &str) -> Result<Vec<(String, Type)>, CallError> {
        let f = self.module.func(self.func_id(name)?);
        Ok(f.param_names.iter().cloned().zip(f.param_types()).collect())
    }

    /// Default values of function `name`'s parameters (`None` where there is none), which a
    /// caller may omit from the end of the argument list.
    pub fn defaults(&self, name: &str) -> Result<Vec<Option<Value>>, CallError> {
        let id = self.func_id(name)?;
        Ok(self.defaults.get(id.index()).cloned().unwrap_or_default())
    }

    /// Function `name`'s parameter defaults as Python expressions (`None` where there is none),
    /// for printing the IR back as Python; a tensor default is `torch.tensor(<its elements>,
    /// dtype=...)`.
    pub fn default_literals(&self, name: &str) -> Result<Vec<Option<String>>, CallError> {
        fn literal(v: &Value) -> Option<String> {
            Some(match v {
                Value::Float(f) if f.is_nan() => "math.nan".into(),
                Value::Float(f) if f.is_infinite() && *f > 0.0 => "math.inf".into(),
                Value::Float(f) if f.is_infinite() => "-math.inf".into(),
                Value::None | Value::Bool(_) | Value::Int(_) | Value::Float(_) => {
                    pyjit_interp::format::py_repr(v)
                }
                Value::Str(_) | Value::DType(_) => pyjit_interp::format::py_repr(v),
                Value::Tuple(items) => {
                    let parts = items.iter().map(literal).collect::<Option<Vec<_>>>()?;
                    if parts.len() == 1 {
                        format!("({},)", parts[0])
                    } else {
                        format!("({})", parts.join(", "))
                    }
                }
                Value::List(l) => {
                    let parts = l
                        .snapshot()
                        .iter()
                        .map(literal)
                        .collect::<Option<Vec<_>>>()?;
                    format!("[{}]", parts.join(", "))
                }
                Value::Tensor(t) => tensor_literal(t)?,
                Value::Index(_) | Value::Dict(_) => return None,
            })
        }
        /// `torch.tensor(<nested lists>, dtype=torch.X)` of a (small) default tensor.
        fn tensor_literal(t: &pyjit_runtime::Tensor) -> Option<String> {
            use pyjit_runtime::DType;
            if t.numel() > 10_000 {
                return None;
            }
            let items: Vec<String> = match t.dtype() {
                DType::Bool => t
                    .to_vec::<bool>()
                    .iter()
                    .map(|&b| if b { "True" } else { "False" }.to_string())
                    .collect(),
                d if d.is_float() => t
                    .to_vec::<f64>()
                    .iter()
                    .map(|&x| literal(&Value::Float(x)))
                    .collect::<Option<Vec<_>>>()?,
                _ => t.to_vec::<i64>().iter().map(|i| i.to_string()).collect(),
            };
            fn nest(items: &[String], shape: &[usize]) -> String {
                match shape.split_first() {
                    None => items.first().cloned().unwrap_or_default(),
                    Some((&n, rest)) => {
                        let step = rest.iter().product::<usize>();
                        let parts: Vec<String> = (0..n)
                            .map(|i| nest(&items[i * step..(i + 1) * step], rest))
                            .collect();
                        format!("[{}]", parts.join(", "))
                    }
                }
            }
            Some(format!(
                "torch.tensor({}, dtype={})",
                nest(&items, t.shape()),
                t.dtype().torch_name()
            ))
        }
        Ok(self
            .defaults(name)?
            .iter()
            .map(|d| d.as_ref().and_then(literal))
            .collect())
    }

    /// The declared (or inferred) return type of function `name`.
    pub fn return_type(&self, name: &str) -> Result<Type, CallError> {
        Ok(self.module.func(self.func_id(name)?).ret.clone())
    }

    /// The signature (code-cache key) of a call of `name` with `args`.
    pub fn signature(&self, name: &str, args: &[Value]) -> Result<Signature, CallError> {
        let params: Vec<Type> = self.params(name)?.into_iter().map(|(_, t)| t).collect();
        Ok(Signature::of(args, &params))
    }

    /// The IR of function `name` specialized for a call with `args`: every tensor type refined
    /// (dtype, rank, dims where they follow) through every op. Returns a copy of the module with
    /// the specialization added as a new function `NAME.specialized` (its id is returned), so
    /// that calls inside it — recursion with other signatures included — still reach the
    /// generic functions.
    pub fn specialize(&self, name: &str, args: &[Value]) -> Result<(Module, FuncId), CallError> {
        let id = self.func_id(name)?;
        let params = self.module.func(id).param_types();
        if args.len() != params.len() {
            return Err(CallError::BadArguments(format!(
                "{name}() takes {} argument(s) but {} were given",
                params.len(),
                args.len()
            )));
        }
        let types: Vec<Type> = args
            .iter()
            .zip(&params)
            .map(|(a, t)| static_type(a, t))
            .collect();
        with_specialization(&self.module, id, &types).map_err(CallError::BadArguments)
    }

    /// [`Program::specialize`] followed by the program's optimization pipeline
    /// ([`Options::opt`]): the IR a backend compiles for a call with `args`, and what the passes
    /// did (`pyjit compile --emit ir ARGS -O2`).
    pub fn specialize_optimized(
        &self,
        name: &str,
        args: &[Value],
    ) -> Result<(Module, FuncId, PassReport), CallError> {
        let (mut m, entry) = self.specialize(name, args)?;
        let report = run_pipeline(&mut m, &self.options.opt);
        Ok((m, entry, report))
    }

    /// Compiles (or finds in the cache) what a call of `name` with `args` runs on the
    /// program's backend, without calling it — so that `--time` can tell compile time from
    /// run time. Calling is enough otherwise: the first call per signature compiles.
    pub fn prepare(&self, name: &str, args: &[Value]) -> Result<(), CallError> {
        let id = self.func_id(name)?;
        if self.module.func(id).param_types().len() != args.len() {
            // The call reports it, with the parameter names.
            return Ok(());
        }
        match self.options.backend {
            Backend::Native => self.native_function(id, args).map(drop),
            Backend::Interp if self.options.specializes() && !self.options.specialize_dims => {
                self.specialized_module(id, args).map(drop)
            }
            Backend::Interp => Ok(()),
        }
    }

    /// Calls function `name`; its `print`s go to the process's stdout.
    pub fn call(&self, name: &str, args: Vec<Value>) -> Result<Value, CallError> {
        let mut out = std::io::stdout();
        self.call_with_output(name, args, &mut out)
    }

    /// Calls function `name`, writing its `print`s to `out`.
    pub fn call_with_output(
        &self,
        name: &str,
        args: Vec<Value>,
        out: &mut dyn Write,
    ) -> Result<Value, CallError> {
        self.prepare_call(name, args)?.run(out)
    }

    /// A call of function `name` with `args`, checked against its parameters and ready to run:
    /// with the compiled code when the native code cache already holds it for their signature
    /// (nothing is compiled here, that happens in [`PreparedCall::run`]). The Python package
    /// prepares with the GIL held and runs a call that [runs in bounded
    /// time](PreparedCall::runs_in_bounded_time) without releasing it.
    pub fn prepare_call(
        &self,
        name: &str,
        args: Vec<Value>,
    ) -> Result<PreparedCall<'_>, CallError> {
        let id = self.func_id(name)?;
        let f = self.module.func(id);
        // The parameters' types by reference: this is the per-call path, so nothing here
        // allocates unless the call fails.
        let params = f.params();
        if args.len() != params.len() {
            return Err(CallError::BadArguments(format!(
                "{name}() takes {} argument(s) ({}) but {} were given",
                params.len(),
                f.param_names.join(", "),
                args.len()
            )));
        }
        for ((a, &p), pname) in args.iter().zip(params).zip(&f.param_names) {
            let t = f.value_type(p);
            if !a.has_type(t) {
                return Err(CallError::BadArguments(format!(
                    "argument for parameter `{pname}` of {name}() must be {t}, got a {}",
                    a.type_name()
                )));
            }
        }
        let native = match self.options.backend {
            Backend::Native => self.cached_native(id, &args),
            Backend::Interp => None,
        };
        Ok(PreparedCall {
            program: self,
            id,
            args,
            native,
        })
    }

    /// Runs function `id` on checked `args`: specializes and compiles what the backend needs
    /// for their signature first, unless cached.
    fn run_call(
        &self,
        id: FuncId,
        args: Vec<Value>,
        out: &mut dyn Write,
    ) -> Result<Value, CallError> {
        match self.options.backend {
            Backend::Interp if self.options.specializes() => {
                let spec = self.specialized_module(id, &args)?;
                let (module, entry) = &*spec;
                let config = Config {
                    check_types: self.options.specialize,
                    ..self.options.interp.clone()
                };
                Interpreter::new(module, config, out)
                    .call(*entry, args)
                    .map_err(|error| CallError::Run(RunError::new(error, self.source.clone())))
            }
            Backend::Interp => {
                let mut interp = Interpreter::new(&self.module, self.options.interp.clone(), out);
                interp
                    .call(id, args)
                    .map_err(|error| CallError::Run(RunError::new(error, self.source.clone())))
            }
            Backend::Native => {
                let native = self.native_function(id, &args)?;
                self.run_native(&native, args, out)
            }
        }
    }

    /// Runs compiled code of this program (found by [`PreparedCall::native`]) on arguments
    /// checked against its parameters — any exact-size iterator of them, so that a caller
    /// with a per-call path of its own (the facade's [`crate::api::Function`]) need not
    /// allocate. Errors are located in the program's source.
    pub fn run_native(
        &self,
        native: &pyjit_codegen::NativeFunction,
        args: impl pyjit_codegen::CallArgs,
        out: &mut dyn Write,
    ) -> Result<Value, CallError> {
        native
            .call_owned_with_output(args, out)
            .map_err(|error| CallError::Run(RunError::new(error, self.source.clone())))
    }

    /// [`Program::run_native`] for a function whose arguments are all scalars
    /// ([`pyjit_codegen::NativeFunction::call_scalars`]: no buffer, no allocation).
    #[inline]
    pub fn run_native_scalars(
        &self,
        native: &pyjit_codegen::NativeFunction,
        args: &[pyjit_codegen::ScalarArg],
        out: &mut dyn Write,
    ) -> Result<Value, CallError> {
        native
            .call_scalars(args, out)
            .map_err(|error| CallError::Run(RunError::new(error, self.source.clone())))
    }

    /// The module in which function `id` is specialized for the signature of `args`: from the
    /// cache, or made now.
    fn specialized_module(
        &self,
        id: FuncId,
        args: &[Value],
    ) -> Result<Arc<(Module, FuncId)>, CallError> {
        let params = self.module.func(id).param_types();
        let signature = Signature::of(args, &params);
        let make = || {
            let types: Vec<Type> = args
                .iter()
                .zip(&params)
                .map(|(a, t)| static_type_with(a, t, self.options.specialize_dims))
                .collect();
            let (m, entry, record) = self.optimized_specialization(id, &signature, &types)?;
            self.record(record);
            Ok(Arc::new((m, entry)))
        };
        if self.options.specialize_dims {
            // Shapes are finer than the cache key: specialize per call.
            return make().map_err(CallError::Specialize);
        }
        let mut cache = self.specialized.lock().unwrap_or_else(|p| p.into_inner());
        let entry = cache.entry((id, signature.clone())).or_insert_with(make);
        entry.clone().map_err(CallError::Specialize)
    }

    /// Function `id` specialized for argument types `types`, then optimized with the
    /// program's pipeline: the one path from generic IR to what either backend runs.
    fn optimized_specialization(
        &self,
        id: FuncId,
        signature: &Signature,
        types: &[Type],
    ) -> Result<(Module, FuncId, Compilation), String> {
        let t = Instant::now();
        let (mut m, entry) = with_specialization(&self.module, id, types)?;
        let specialize = t.elapsed();
        // Only what the entry reaches runs: callees that inlining absorbed are left alone.
        let passes = run_pipeline_from(&mut m, &self.options.opt, Some(&[entry]));
        Ok((
            m,
            entry,
            Compilation {
                function: self.module.func(id).name.clone(),
                signature: signature.clone(),
                backend: self.options.backend,
                specialize,
                passes,
                codegen: None,
                cached: false,
            },
        ))
    }

    /// [`Program::optimized_specialization`] through the on-disk cache when the options
    /// have one: a valid entry is used, anything else is compiled and (re)written.
    fn cached_specialization(
        &self,
        id: FuncId,
        signature: &Signature,
        types: &[Type],
    ) -> Result<(Module, FuncId, Compilation), String> {
        let Some(cache) = &self.options.cache else {
            return self.optimized_specialization(id, signature, types);
        };
        let name = &self.module.func(id).name;
        let sig: Vec<String> = signature.0.iter().map(|k| k.to_string()).collect();
        let key = crate::cache::CodeCache::key(
            &self.source,
            name,
            &sig.join(", "),
            &self.options.opt.pass_names().join(","),
            self.options.opt.fastmath,
        );
        let t = Instant::now();
        if let Some((m, entry)) = cache.load(&key, &self.source, &format!("{name}.specialized")) {
            return Ok((
                m,
                entry,
                Compilation {
                    function: name.clone(),
                    signature: signature.clone(),
                    backend: self.options.backend,
                    specialize: t.elapsed(),
                    passes: PassReport::default(),
                    codegen: None,
                    cached: true,
                },
            ));
        }
        let made = self.optimized_specialization(id, signature, types)?;
        cache.store(&key, &made.0);
        Ok(made)
    }

    fn record(&self, c: Compilation) {
        self.compilations
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(c);
    }

    /// The compiled code for calling `id` with `args` if the cache holds it (a compilation that
    /// failed is not returned: [`Program::native_function`] reports it).
    fn cached_native(&self, id: FuncId, args: &[Value]) -> Option<NativeRef<'_>> {
        let f = self.module.func(id);
        // The per-call path for a function called with one signature: no lock, no hash, no
        // key built, no clone.
        if let Some((s, native)) = self.native_first[id.index()].get()
            && s.matches_params(args, f)
        {
            return Some(NativeRef::Borrowed(native));
        }
        let key = (id, Signature::of_params(args, f));
        let cache = self.native.lock().unwrap_or_else(|p| p.into_inner());
        match cache.get(&key) {
            Some(Ok(n)) => Some(NativeRef::Owned(n.clone())),
            _ => None,
        }
    }

    /// The machine code for calling `id` with `args`: from the cache, or specialized for their
    /// signature and compiled now.
    fn native_function(&self, id: FuncId, args: &[Value]) -> Result<NativeRef<'_>, CallError> {
        if let Some(n) = self.cached_native(id, args) {
            return Ok(n);
        }
        let f = self.module.func(id);
        let first = &self.native_first[id.index()];
        let key = (id, Signature::of_params(args, f));
        // A poisoned lock only means another thread panicked while compiling; the map itself
        // is still consistent (entries are inserted whole).
        let mut cache = self.native.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(hit) = cache.get(&key) {
            // Compiled by another thread since the look above, or a failure (reported again).
            return hit
                .clone()
                .map(NativeRef::Owned)
                .map_err(CallError::Codegen);
        }
        let signature = key.1.clone();
        let params = f.param_types();
        let entry = cache.entry(key).or_insert_with(|| {
            let types: Vec<Type> = args
                .iter()
                .zip(&params)
                .map(|(a, t)| static_type(a, t))
                .collect();
            let (m, entry, mut record) = self.cached_specialization(id, &signature, &types)?;
            let options = pyjit_codegen::Options {
                max_call_depth: self.options.interp.max_call_depth as u64,
                // Only the entry and what it still calls after inlining.
                roots: Some(vec![entry]),
                ..pyjit_codegen::Options::default()
            };
            let compiled = pyjit_codegen::NativeModule::compile(&m, &options);
            if let Ok(c) = &compiled {
                record.codegen = Some(c.times().clone());
            }
            // Recorded even when code generation fails: the pass dumps help find out why.
            self.record(record);
            compiled
                .map_err(|e| e.to_string())?
                .function_by_id(entry)
                .ok_or_else(|| format!("no compiled function for `{}`", f.name))
        });
        let native = entry.clone().map_err(CallError::Codegen)?;
        // The first signature compiled (under the lock, so exactly once) becomes the
        // lock-free fast path.
        let _ = first.set((signature, native.clone()));
        Ok(NativeRef::Owned(native))
    }

    /// How many specializations the native code cache holds (for tests and `--time`).
    pub fn native_cache_len(&self) -> usize {
        self.native.lock().map(|c| c.len()).unwrap_or(0)
    }
}

/// One empty first-specialization slot per function of `module`.
fn first_slots(module: &Module) -> Vec<OnceLock<(Signature, pyjit_codegen::NativeFunction)>> {
    module.funcs.keys().map(|_| OnceLock::new()).collect()
}

/// A call with checked arguments, ready to run ([`Program::prepare_call`]).
pub struct PreparedCall<'a> {
    program: &'a Program,
    id: FuncId,
    args: Vec<Value>,
    /// The compiled code, when the native code cache held it.
    native: Option<NativeRef<'a>>,
}

impl PreparedCall<'_> {
    /// Whether the call runs compiled code that takes a bounded time whatever the arguments'
    /// values and sizes (no loop, call or tensor kernel: [`pyjit_ir::Function::runs_in_bounded_time`]
    /// of the specialization). False when the code is not compiled yet.
    pub fn runs_in_bounded_time(&self) -> bool {
        self.native
            .as_ref()
            .is_some_and(|n| n.runs_in_bounded_time())
    }

    /// The compiled code the call runs, when the native code cache held it for the call's
    /// signature (then [`Program::run_native`] may run it again for arguments of the same
    /// signature).
    pub fn native(&self) -> Option<&pyjit_codegen::NativeFunction> {
        self.native.as_deref()
    }

    /// Runs the call (specializing and compiling first if the code is not cached yet), writing
    /// its `print`s to `out`.
    pub fn run(self, out: &mut dyn Write) -> Result<Value, CallError> {
        match self.native {
            Some(native) => self.program.run_native(&native, self.args, out),
            None => self.program.run_call(self.id, self.args, out),
        }
    }
}

/// Compiled code found by [`Program::native_function`]: borrowed from the lock-free slot, or a
/// handle cloned out of the locked cache.
enum NativeRef<'a> {
    Borrowed(&'a pyjit_codegen::NativeFunction),
    Owned(pyjit_codegen::NativeFunction),
}

impl std::ops::Deref for NativeRef<'_> {
    type Target = pyjit_codegen::NativeFunction;

    fn deref(&self) -> &pyjit_codegen::NativeFunction {
        match self {
            NativeRef::Borrowed(n) => n,
            NativeRef::Owned(n) => n,
        }
    }
}

/// The constant default values of every function's parameters, matched to the IR functions by
/// name (the frontend scripts every `def` of the file, in source order).
fn default_values(ast: &pyjit_syntax::ast::Module, module: &Module) -> Vec<Vec<Option<Value>>> {
    use pyjit_script::module::{analyze, eval_const, tensor_default};
    let mut ignored = Vec::new();
    let info = analyze(ast, &mut ignored);
    // Each IR function's `def` by name (the first of a name, as a search in source order
    // finds it): one pass over the definitions, not one per function.
    let mut defs: FxHashMap<&str, _> = FxHashMap::default();
    for d in &info.functions {
        defs.entry(d.name.name.as_str()).or_insert(d);
    }
    module
        .funcs
        .values()
        .map(|f| {
            let Some(def) = defs.get(f.name.as_str()) else {
                return vec![None; f.param_names.len()];
            };
            let p = &def.params;
            let params: Vec<_> = p.posonly.iter().chain(&p.args).chain(&p.kwonly).collect();
            f.param_names
                .iter()
                .zip(f.param_types())
                .map(|(name, ty)| {
                    let param = params.iter().find(|q| &q.name.name == name)?;
                    let d = param.default.as_ref()?;
                    match eval_const(d, &info) {
                        Some(c) => const_to_value(&c, &ty),
                        // Evaluated once, as Python evaluates a default when the `def` runs:
                        // every call from outside that omits the argument shares this tensor.
                        None => tensor_default(d, &info)?.ok().map(Value::Tensor),
                    }
                })
                .collect()
        })
        .collect()
}

fn const_to_value(c: &pyjit_script::module::Const, ty: &Type) -> Option<Value> {
    use pyjit_script::module::Const;
    Some(match (c, ty) {
        (Const::None, _) => Value::None,
        (c, Type::Optional(inner)) => return const_to_value(c, inner),
        (Const::Int(i), Type::Float) => Value::Float(*i as f64),
        (Const::Int(i), Type::Int) => Value::Int(*i),
        (Const::Float(x), Type::Float) => Value::Float(*x),
        (Const::Bool(b), Type::Bool) => Value::Bool(*b),
        (Const::Str(s), Type::Str) => Value::str(s),
        (Const::DType(d), Type::DType) => Value::DType(*d),
        (Const::Tuple(items), Type::Tuple(tys)) if items.len() == tys.len() => Value::tuple(
            items
                .iter()
                .zip(tys)
                .map(|(c, t)| const_to_value(c, t))
                .collect::<Option<Vec<_>>>()?,
        ),
        (Const::Tuple(items), Type::List(elem)) => Value::list(
            items
                .iter()
                .map(|c| const_to_value(c, elem))
                .collect::<Option<Vec<_>>>()?,
        ),
        _ => return None,
    })
}

/// What the name of a function specialized for one signature ends with (`f.specialized`).
pub const SPECIALIZED_SUFFIX: &str = ".specialized";

/// The name a user wrote for function `name`: without the specialization's suffix.
pub fn user_facing_name(name: &str) -> &str {
    name.strip_suffix(SPECIALIZED_SUFFIX).unwrap_or(name)
}

/// `module` plus the specialization of function `id` for argument types `types`, added as a new
/// function (`NAME.specialized`) rather than replacing `id`: calls inside it — recursion included
/// — still reach the generic function, which accepts every signature. Returns the module and the
/// entry's id.
fn with_specialization(
    module: &Module,
    id: FuncId,
    types: &[Type],
) -> Result<(Module, FuncId), String> {
    let mut spec = pyjit_opt::specialize(module, id, types).map_err(|e| e.to_string())?;
    spec.name = format!("{}{SPECIALIZED_SUFFIX}", spec.name);
    if module.function_by_name(&spec.name).is_some() {
        return Err(format!("a function named `{}` already exists", spec.name));
    }
    let mut m = module.clone();
    let entry = m.push_function(spec);
    // The generic functions were verified when the program was made (and never change): the
    // new one is all there is to check (a second walk of every function cost as much as the
    // specialization of a 100k-line one).
    pyjit_ir::verify_function(&m, entry)
        .map_err(|e| format!("specialized IR does not verify: {e:?}"))?;
    Ok((m, entry))
}

/// The static type of an argument as specialization sees it: tensors with their dtype and
/// rank, tuples element-wise, everything else as declared.
pub fn static_type(v: &Value, declared: &Type) -> Type {
    static_type_with(v, declared, false)
}

/// [`static_type`], with each tensor's dims too when `dims` is set (a finer key than a
/// [`Signature`]: used to check shape facts, never to key a cache).
pub fn static_type_with(v: &Value, declared: &Type, dims: bool) -> Type {
    match (v, declared) {
        (Value::None, _) => declared.clone(),
        (v, Type::Optional(inner)) => Type::optional(static_type_with(v, inner, dims)),
        (Value::Tensor(t), _) if dims => Type::Tensor(pyjit_ir::TensorType::shaped(
            Some(t.dtype()),
            t.shape().iter().map(|&d| Some(d as u64)).collect(),
        )),
        (Value::Tensor(t), _) => Type::Tensor(pyjit_ir::TensorType::ranked(
            Some(t.dtype()),
            t.dim() as u32,
        )),
        (Value::Tuple(items), Type::Tuple(tys)) if items.len() == tys.len() => Type::Tuple(
            items
                .iter()
                .zip(tys)
                .map(|(x, t)| static_type_with(x, t, dims))
                .collect(),
        ),
        _ => declared.clone(),
    }
}

/// A NumPy-style module compiled for a call of one function (the one `arg_types` names),
/// without the other functions its `errors` are all in, when that compiles: an unannotated
/// parameter of a function the call never reaches is a `Tensor` there, and may not type-check as
/// one (`def mk(n): return np.zeros((n, n))` beside the function run). The Python package, which
/// compiles only the function and what it uses, never sees those errors; `pyjit run -f` now
/// does not either. An error in the called function itself (also one that appears once a
/// function it calls is dropped) or outside every function keeps the original errors (`None`).
fn without_failing_helpers(
    source: &SourceFile,
    ast: &pyjit_syntax::ast::Module,
    arg_types: &pyjit_script::ArgTypes,
    errors: &[Diagnostic],
) -> Option<(pyjit_syntax::ast::Module, Module)> {
    use pyjit_syntax::ast::StmtKind;
    let mut names = arg_types.keys();
    let (Some(entry), None) = (names.next(), names.next()) else {
        return None;
    };
    if !pyjit_script::types_from_arguments(ast) {
        return None;
    }
    let defs: Vec<(&str, Span)> = ast
        .body
        .iter()
        .filter_map(|s| match &s.kind {
            StmtKind::FunctionDef(d) => Some((d.name.name.as_str(), s.span)),
            _ => None,
        })
        .collect();
    // Drop the functions the errors are in, compile again, and repeat with the errors that
    // leaves (a function calling a dropped one fails next): at most once per function.
    let mut dropped: Vec<&str> = Vec::new();
    let mut errors = errors.to_vec();
    loop {
        let before = dropped.len();
        for e in errors.iter().filter(|e| !e.reported_elsewhere) {
            let at = e.primary_span()?;
            let (name, _) = defs
                .iter()
                .find(|(_, d)| d.start <= at.start && at.end <= d.end)?;
            if name == entry {
                return None;
            }
            if !dropped.contains(name) {
                dropped.push(name);
            }
        }
        if dropped.len() == before {
            return None;
        }
        let pruned = pyjit_syntax::ast::Module {
            body: ast
                .body
                .iter()
                .filter(|s| {
                    !matches!(&s.kind, StmtKind::FunctionDef(d) if dropped.contains(&d.name.name.as_str()))
                })
                .cloned()
                .collect(),
            span: ast.span,
        };
        match pyjit_script::script_module_typed(source, &pruned, arg_types) {
            Ok(module) => return Some((pruned, module)),
            Err(e) => errors = e,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pyjit_runtime::Tensor;

    /// `ArgKey::matches` is `ArgKey::of` compared, for every pair of values and declared type.
    #[test]
    fn arg_key_matches_agrees_with_of() {
        let t1 = Tensor::from_vec(vec![1.0f32, 2.0], &[2]).unwrap();
        let t2 = Tensor::from_vec(vec![1.0f32; 4], &[2, 2]).unwrap();
        let t3 = Tensor::from_vec(vec![1.0f64, 2.0], &[2]).unwrap();
        let values = vec![
            Value::Int(1),
            Value::Float(1.5),
            Value::Bool(true),
            Value::None,
            Value::str("s"),
            Value::DType(DType::Float32),
            Value::Tensor(t1.clone()),
            Value::Tensor(t2.clone()),
            Value::Tensor(t3),
            Value::tuple(vec![Value::Int(1), Value::Tensor(t1.clone())]),
            Value::tuple(vec![Value::Int(1), Value::Tensor(t2.clone())]),
            Value::list(vec![Value::Tensor(t1), Value::Tensor(t2)]),
            Value::list(vec![Value::Int(3)]),
        ];
        let types = vec![
            Type::Int,
            Type::Float,
            Type::Optional(Box::new(Type::Int)),
            Type::tensor(),
            Type::Tuple(vec![Type::Int, Type::tensor()]),
            Type::List(Box::new(Type::tensor())),
            Type::List(Box::new(Type::Int)),
        ];
        let mut checked = 0;
        for ty in &types {
            for a in &values {
                let key = ArgKey::of(a, ty);
                for b in &values {
                    assert_eq!(
                        key.matches(b, ty),
                        key == ArgKey::of(b, ty),
                        "key of {a:?} against {b:?} declared {ty}"
                    );
                    checked += 1;
                }
            }
        }
        assert_eq!(checked, types.len() * values.len() * values.len());
    }
}
