//! The public tracing API: eager evaluation, tracing into IR, traced functions that check their
//! guards and re-trace, and `check_trace`.

use crate::error::{TraceError, from_interp};
use crate::eval::Evaluator;
use crate::record::{Guard, GuardReason, Recorder};
use crate::value::{PyVal, TVal, from_interp as py_from_interp, to_interp};
use pyjit_interp::Value as IValue;
use pyjit_ir::{Const, FuncId, Module, OpKind, Type};
use pyjit_syntax::ast::{self, StmtKind};
use pyjit_syntax::{Diagnostic, SourceFile, Span};
use pyjit_value::ExcKind;
use std::io::Write;
use std::sync::Arc;

/// How many traces one [`TracedFunction`] keeps before it stops re-tracing and evaluates eagerly
/// (Dynamo's `recompile_limit`).
pub const CACHE_LIMIT: usize = 8;

/// Tracing settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceOptions {
    /// Record guards (the default). `false` is `--no-guards`: torch.jit.trace's behaviour, where
    /// a trace is reused for every later input and silently wrong when a Python decision would
    /// have gone another way.
    pub guards: bool,
    /// Statements the eager run that records a trace may execute before it stops with a
    /// `TimeoutError` (loop iterations included; unbounded by default).
    pub max_steps: u64,
}

impl TraceOptions {
    /// torch.jit.trace's behaviour: no guards.
    pub fn no_guards() -> TraceOptions {
        TraceOptions {
            guards: false,
            ..TraceOptions::default()
        }
    }
}

impl Default for TraceOptions {
    fn default() -> TraceOptions {
        TraceOptions {
            guards: true,
            max_steps: u64::MAX,
        }
    }
}

/// One recorded trace.
#[derive(Clone, Debug)]
pub struct Trace {
    /// The IR: the traced function (plus the scripted functions it calls).
    pub module: Module,
    /// The traced function in `module`.
    pub func: FuncId,
    /// The guards it checks, in recording order.
    pub guards: Vec<Guard>,
    /// TracerWarnings, one per source location that produced a guard.
    pub warnings: Vec<Diagnostic>,
    /// What the eager run that recorded it returned.
    pub result: IValue,
    /// The structural key of the example arguments (see [`signature_key`]).
    pub key: String,
}

impl Trace {
    /// The IR text of the trace (with `# file:line:col` comments).
    pub fn print(&self) -> String {
        pyjit_ir::print_module(&self.module)
    }

    /// What `pyjit trace` prints: the graph, a one-line summary of its guards, then the
    /// rendered warnings.
    pub fn render(&self, file: &SourceFile) -> String {
        let mut s = self.print();
        if !s.ends_with('\n') {
            s.push('\n');
        }
        s.push_str(&format!(
            "# {} guard{}; a call whose guarded values differ re-traces\n",
            self.guards.len(),
            if self.guards.len() == 1 { "" } else { "s" }
        ));
        s.push_str(&self.render_warnings(file));
        s
    }

    /// The warnings rendered against the source.
    pub fn render_warnings(&self, file: &SourceFile) -> String {
        self.warnings
            .iter()
            .map(|w| w.render(file))
            .collect::<Vec<_>>()
            .join("")
    }

    /// Whether any function of the trace's module writes a tensor in place or mutates a list:
    /// then a run that may be abandoned (at a guard) runs on [`deep_clone`]s of the arguments,
    /// written back with [`copy_back`] on success.
    pub fn mutates(&self) -> bool {
        self.module.funcs.values().any(|f| {
            f.all_ops().into_iter().any(|op| match &f.op(op).kind {
                OpKind::Tensor(id) => pyjit_ir::schema::is_inplace(*id),
                OpKind::ListSet | OpKind::ListAppend => true,
                _ => false,
            })
        })
    }

    /// Runs the trace on `args` with the reference interpreter, writing its `print` output to
    /// `out`. A failed guard is an error of class `GuardFailure`.
    pub fn run(&self, args: Vec<IValue>, out: &mut dyn Write) -> Result<IValue, TraceError> {
        pyjit_interp::Interpreter::new(&self.module, pyjit_interp::Config::default(), out)
            .call(self.func, args)
            .map_err(from_interp)
    }

    /// The same trace without its guards: what torch.jit.trace would run.
    pub(crate) fn without_guards(&self) -> Trace {
        let mut t = self.clone();
        let f = t.module.func_mut(t.func);
        for op in f.all_ops() {
            if matches!(f.op(op).kind, OpKind::Guard { .. }) {
                f.remove_op(op);
            }
        }
        t.guards.clear();
        t
    }
}

/// Removes the call site of the entry call (the API's, not the program's) from an error.
fn drop_entry(mut e: TraceError) -> TraceError {
    e.call_stack.pop();
    e
}

fn find_def<'a>(
    module: &'a ast::Module,
    name: &str,
    span: Span,
) -> Result<&'a ast::FunctionDef, TraceError> {
    module
        .body
        .iter()
        .find_map(|s| match &s.kind {
            StmtKind::FunctionDef(d) if d.name.name == name => Some(&**d),
            _ => None,
        })
        .ok_or_else(|| {
            TraceError::new(
                ExcKind::NameError,
                format!("no function named '{name}' in the file"),
                span,
            )
        })
}

/// Runs function `name` of a parsed module eagerly (Python's dynamic semantics over runtime
/// tensors), printing to stdout.
pub fn eval_function(
    file: &SourceFile,
    module: &ast::Module,
    name: &str,
    args: Vec<IValue>,
) -> Result<IValue, TraceError> {
    eval_function_to(file, module, name, args, &mut std::io::stdout())
}

/// [`eval_function`] writing `print` output to `out`.
pub fn eval_function_to(
    file: &SourceFile,
    module: &ast::Module,
    name: &str,
    args: Vec<IValue>,
    out: &mut dyn Write,
) -> Result<IValue, TraceError> {
    eval_function_limited(file, module, name, args, out, u64::MAX)
}

/// [`eval_function_to`] that stops with a `TimeoutError` after executing `max_steps`
/// statements (loop iterations included).
pub fn eval_function_limited(
    file: &SourceFile,
    module: &ast::Module,
    name: &str,
    args: Vec<IValue>,
    out: &mut dyn Write,
    max_steps: u64,
) -> Result<IValue, TraceError> {
    let def = find_def(module, name, module.span)?;
    let mut ev = Evaluator::new(file, module, out);
    ev.steps_left = max_steps;
    let pyargs = args.iter().map(py_from_interp).collect();
    let r = ev
        .call_user(name, pyargs, vec![], def.name.span)
        .map_err(drop_entry)?;
    to_interp(&r).map_err(|k| {
        TraceError::type_error(
            format!("a function result of type '{k}' cannot be returned"),
            def.name.span,
        )
    })
}

/// The structural key of an argument list: kinds, tensor dtypes and ranks, list lengths, string
/// values. A
/// trace is only reused for arguments with the same key (Dynamo guards tensor dtype/rank the
/// same way); scalar values are guarded inside the graph.
pub fn signature_key(args: &[IValue]) -> String {
    fn one(v: &IValue, s: &mut String) {
        match v {
            IValue::Tensor(t) => s.push_str(&format!("T[{},{}]", t.dtype().name(), t.dim())),
            IValue::Tuple(items) => {
                s.push('(');
                items.iter().for_each(|i| one(i, s));
                s.push(')');
            }
            IValue::List(l) => {
                s.push('[');
                l.snapshot().iter().for_each(|i| one(i, s));
                s.push(']');
            }
            // Strings cannot be guarded in the IR (guards compare ints, floats and bools), so
            // their value is part of the key.
            IValue::Str(v) => s.push_str(&format!("str={v:?},")),
            other => {
                s.push_str(other.type_name());
                s.push(',');
            }
        }
    }
    let mut s = String::new();
    args.iter().for_each(|a| one(a, &mut s));
    s
}

fn param_type(v: &IValue) -> Type {
    match v {
        IValue::None => Type::None,
        IValue::Bool(_) => Type::Bool,
        IValue::Int(_) => Type::Int,
        IValue::Float(_) => Type::Float,
        IValue::Str(_) => Type::Str,
        IValue::DType(_) => Type::DType,
        IValue::Tensor(_) => Type::tensor(),
        IValue::Tuple(items) => Type::Tuple(items.iter().map(param_type).collect()),
        IValue::List(l) => Type::list(l.snapshot().first().map(param_type).unwrap_or(Type::Int)),
        IValue::Dict(d) => match d.snapshot().first() {
            Some((k, v)) => Type::dict(param_type(&k.value()), param_type(v)),
            None => Type::dict(Type::Str, Type::tensor()),
        },
        IValue::Index(_) => Type::Index,
    }
}

/// The Python object of a traced argument: tensors become graph values; scalars are guarded
/// constants (torch.jit.trace bakes them in silently).
fn bind_arg(rec: &mut Recorder, v: &IValue, irv: pyjit_ir::Value, what: &str, span: Span) -> PyVal {
    // With guards on, a scalar argument stays a graph input until Python looks at its value;
    // without guards it is a constant, as torch.jit.trace bakes it in.
    let sym = |value: PyVal| {
        PyVal::Sym(std::rc::Rc::new(crate::value::Sym {
            value,
            ir: irv,
            what: what.to_string(),
            span,
        }))
    };
    match v {
        IValue::Tensor(t) => PyVal::Tensor(TVal {
            t: t.clone(),
            ir: Some(irv),
        }),
        IValue::Int(i) if rec.emit_guards => sym(PyVal::Int(*i)),
        IValue::Float(x) if rec.emit_guards => sym(PyVal::Float(*x)),
        IValue::Bool(b) if rec.emit_guards => sym(PyVal::Bool(*b)),
        IValue::Int(i) => {
            rec.guard(irv, Const::Int(*i), GuardReason::Argument, what, span);
            PyVal::Int(*i)
        }
        IValue::Float(x) => {
            rec.guard(irv, Const::Float(*x), GuardReason::Argument, what, span);
            PyVal::Float(*x)
        }
        IValue::Bool(b) => {
            rec.guard(irv, Const::Bool(*b), GuardReason::Argument, what, span);
            PyVal::Bool(*b)
        }
        IValue::Tuple(items) => PyVal::tuple(
            items
                .iter()
                .enumerate()
                .map(|(i, it)| {
                    let e = rec.builder(span).tuple_get(irv, i as u32);
                    bind_arg(rec, it, e, &format!("{what}[{i}]"), span)
                })
                .collect(),
        ),
        IValue::List(l) => {
            let items = l.snapshot();
            let len_of = format!("len({what})");
            rec.guard_len(irv, items.len(), GuardReason::Argument, &len_of, span);
            PyVal::list(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, it)| {
                        let mut b = rec.builder(span);
                        let ci = b.const_int(i as i64);
                        let e = b.list_get(irv, ci);
                        bind_arg(rec, it, e, &format!("{what}[{i}]"), span)
                    })
                    .collect(),
            )
        }
        other => py_from_interp(other),
    }
}

/// The element type an empty list result gets, from the return annotation (`List[float]`).
fn annotated_elem(def: &ast::FunctionDef) -> Type {
    let elem = |e: &ast::Expr| match e.dotted_name().as_deref() {
        Some("float") => Type::Float,
        Some("bool") => Type::Bool,
        Some("Tensor" | "torch.Tensor") => Type::tensor(),
        _ => Type::Int,
    };
    match def.returns.as_ref().map(|r| &r.kind) {
        Some(ast::ExprKind::Subscript { index, .. }) => Type::list(elem(index)),
        _ => Type::list(Type::Int),
    }
}

/// Traces function `name` on example arguments (printing what it prints to stdout).
pub fn trace_function(
    file: &SourceFile,
    module: &ast::Module,
    name: &str,
    args: Vec<IValue>,
    opts: TraceOptions,
) -> Result<Trace, TraceError> {
    trace_function_to(file, module, name, args, opts, &mut std::io::stdout())
}

/// [`trace_function`] writing the eager run's `print` output to `out`.
pub fn trace_function_to(
    file: &SourceFile,
    module: &ast::Module,
    name: &str,
    args: Vec<IValue>,
    opts: TraceOptions,
    out: &mut dyn Write,
) -> Result<Trace, TraceError> {
    record(file, module, name, args, opts, out).and_then(|(_, t)| t)
}

/// Runs the function eagerly while recording. The outer error is the program's own (the eager
/// run raised); the inner one means the run finished (its result is returned) but its result
/// cannot leave a trace (a heterogeneous list has no IR type).
fn record(
    file: &SourceFile,
    module: &ast::Module,
    name: &str,
    args: Vec<IValue>,
    opts: TraceOptions,
    out: &mut dyn Write,
) -> Result<(IValue, Result<Trace, TraceError>), TraceError> {
    let def = find_def(module, name, module.span)?;
    let key = signature_key(&args);
    let names: Vec<String> = def
        .params
        .posonly
        .iter()
        .chain(&def.params.args)
        .map(|p| p.name.name.clone())
        .collect();
    let pspans: Vec<Span> = def
        .params
        .posonly
        .iter()
        .chain(&def.params.args)
        .map(|p| p.span)
        .collect();
    let params: Vec<(String, Type)> = args
        .iter()
        .enumerate()
        .map(|(i, a)| {
            (
                names.get(i).cloned().unwrap_or_else(|| format!("arg{i}")),
                param_type(a),
            )
        })
        .collect();
    let pref: Vec<(&str, Type)> = params
        .iter()
        .map(|(n, t)| (n.as_str(), t.clone()))
        .collect();
    let func = pyjit_ir::Function::new(name, &pref, Type::None, def.name.span);
    let mut rec = Recorder::new(func, opts.guards);
    if !opts.guards {
        rec.warnings.push(
            Diagnostic::warning(
                "guards are disabled (--no-guards): this trace will answer every later call, whatever the input, as torch.jit.trace does",
            )
            .with_primary(def.name.span, "traced without guards"),
        );
    }
    let irparams = rec.func.params().to_vec();
    let mut pyargs = Vec::with_capacity(args.len());
    for (i, a) in args.iter().enumerate() {
        let span = pspans.get(i).copied().unwrap_or(def.name.span);
        pyargs.push(bind_arg(&mut rec, a, irparams[i], &params[i].0, span));
    }
    let mut ev = Evaluator::new(file, module, out);
    ev.steps_left = opts.max_steps;
    ev.rec = Some(rec);
    let r = ev
        .call_user(name, pyargs, vec![], def.name.span)
        .map_err(drop_entry)?;
    let result = to_interp(&r).map_err(|k| {
        TraceError::type_error(
            format!("a function result of type '{k}' cannot be returned"),
            def.name.span,
        )
    })?;
    let ret = match ev.emit_value(&r, &annotated_elem(def), def.name.span) {
        Ok(v) => v,
        Err(e) => return Ok((result, Err(e))),
    };
    let mut rec = ev
        .rec
        .take()
        .ok_or_else(|| TraceError::unsupported("recorder lost", def.name.span))?;
    rec.builder(def.name.span).return_(ret);
    rec.func.ret = rec.func.value_type(ret).clone();
    let mut m = match ev.scripted.module.take() {
        Some(Ok(m)) => m,
        _ => Module::with_source(Arc::new(file.clone())),
    };
    if m.source.is_none() {
        m.source = Some(Arc::new(file.clone()));
    }
    // A traced function may share its name with a scripted one of the same file.
    while m.function_by_name(&rec.func.name).is_some() {
        rec.func.name.push_str("_traced");
    }
    let fid = m.push_function(rec.func);
    if let Err(msg) = verify_recorded(&m) {
        let e = TraceError::new(
            ExcKind::tracer(),
            format!("internal error: the recorded IR fails verification: {msg}"),
            def.name.span,
        );
        return Ok((result, Err(e)));
    }
    let trace = Trace {
        module: m,
        func: fid,
        guards: rec.guards,
        warnings: rec.warnings,
        result: result.clone(),
        key,
    };
    Ok((result, Ok(trace)))
}

/// What a [`TracedFunction`] did so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TraceStats {
    /// Traces recorded (first call and re-traces).
    pub traces: usize,
    /// Calls answered by running a cached trace.
    pub hits: usize,
    /// Runs of a cached trace that stopped at a failed guard.
    pub guard_failures: usize,
    /// Calls evaluated eagerly because the cache was full.
    pub eager_fallbacks: usize,
}

/// A traced function: traces on its first call, then runs the trace, checking guards on each
/// call; a failed guard re-traces on the new input (up to [`CACHE_LIMIT`] traces, then it
/// evaluates eagerly), so the caller always gets the eager answer.
pub struct TracedFunction {
    file: SourceFile,
    module: ast::Module,
    name: String,
    opts: TraceOptions,
    traces: Vec<Trace>,
    pub stats: TraceStats,
    /// Every warning of every trace, in order (a re-trace adds its own).
    pub warnings: Vec<Diagnostic>,
}

impl TracedFunction {
    pub fn new(
        file: SourceFile,
        module: ast::Module,
        name: impl Into<String>,
        opts: TraceOptions,
    ) -> TracedFunction {
        TracedFunction {
            file,
            module,
            name: name.into(),
            opts,
            traces: Vec::new(),
            stats: TraceStats::default(),
            warnings: Vec::new(),
        }
    }

    /// Parses `file` and wraps its function `name`.
    pub fn from_source(
        file: SourceFile,
        name: impl Into<String>,
        opts: TraceOptions,
    ) -> Result<TracedFunction, Vec<Diagnostic>> {
        let module = pyjit_syntax::parse_module(&file)?;
        Ok(TracedFunction::new(file, module, name, opts))
    }

    pub fn traces(&self) -> &[Trace] {
        &self.traces
    }

    pub fn source(&self) -> &SourceFile {
        &self.file
    }

    /// Calls the function, printing to stdout.
    pub fn call(&mut self, args: Vec<IValue>) -> Result<IValue, TraceError> {
        self.call_to(args, &mut std::io::stdout())
    }

    /// Calls the function, writing `print` output to `out`.
    pub fn call_to(
        &mut self,
        args: Vec<IValue>,
        out: &mut dyn Write,
    ) -> Result<IValue, TraceError> {
        let key = signature_key(&args);
        if !self.opts.guards {
            // torch.jit.trace: the first trace answers every later call, whatever the input.
            if let Some(t) = self.traces.first() {
                self.stats.hits += 1;
                return t.run(args, out);
            }
        } else {
            for t in self.traces.iter().rev().filter(|t| t.key == key) {
                match run_guarded(t, &args) {
                    // The trace raised: re-run eagerly so the error (class, message, output
                    // printed before it) is exactly the eager program's.
                    Err(_) => {
                        return eval_function_to(&self.file, &self.module, &self.name, args, out);
                    }
                    Ok(Some((v, printed))) => {
                        self.stats.hits += 1;
                        out.write_all(&printed).map_err(|e| {
                            TraceError::new(ExcKind::OSError, e.to_string(), Span::DUMMY)
                        })?;
                        return Ok(v);
                    }
                    Ok(None) => self.stats.guard_failures += 1,
                }
            }
        }
        if self.traces.len() >= CACHE_LIMIT {
            self.stats.eager_fallbacks += 1;
            return eval_function_to(&self.file, &self.module, &self.name, args, out);
        }
        let (result, t) = record(&self.file, &self.module, &self.name, args, self.opts, out)?;
        let t = match t {
            Ok(t) => t,
            // The eager run finished but its result cannot leave a trace: answer with it
            // (the next such call records again, and falls back again).
            Err(e) => {
                self.stats.eager_fallbacks += 1;
                self.warnings.push(
                    Diagnostic::warning(format!(
                        "this call could not be traced and ran eagerly: {e}"
                    ))
                    .with_primary(e.span, "cannot be traced"),
                );
                return Ok(result);
            }
        };
        self.stats.traces += 1;
        self.warnings.extend(t.warnings.iter().cloned());
        let r = t.result.clone();
        self.traces.push(t);
        Ok(r)
    }
}

/// A copy of `v` sharing no tensor storage or list with it (for calls that must not see each
/// other's in-place writes).
pub fn deep_clone(v: &IValue) -> Result<IValue, TraceError> {
    Ok(match v {
        IValue::Tensor(t) => IValue::Tensor(
            t.clone_data()
                .map_err(|e| crate::error::from_runtime(e, Span::DUMMY))?,
        ),
        IValue::Tuple(items) => {
            IValue::tuple(items.iter().map(deep_clone).collect::<Result<_, _>>()?)
        }
        IValue::List(l) => IValue::list(
            l.snapshot()
                .iter()
                .map(deep_clone)
                .collect::<Result<_, _>>()?,
        ),
        other => other.clone(),
    })
}

/// Writes the state of `new`, a [`deep_clone`] of `orig` that a completed run mutated, back into
/// `orig`: tensors' data, and lists' elements (set, appended) recursively.
pub fn copy_back(orig: &IValue, new: &IValue) -> Result<(), TraceError> {
    match (orig, new) {
        (IValue::Tensor(a), IValue::Tensor(b)) => a
            .copy_(b)
            .map_err(|e| crate::error::from_runtime(e, Span::DUMMY)),
        (IValue::Tuple(a), IValue::Tuple(b)) => a
            .iter()
            .zip(b.iter())
            .try_for_each(|(x, y)| copy_back(x, y)),
        (IValue::List(a), IValue::List(b)) => {
            let (xs, ys) = (a.snapshot(), b.snapshot());
            for (k, y) in ys.iter().enumerate() {
                match xs.get(k) {
                    Some(x @ (IValue::Tensor(_) | IValue::Tuple(_) | IValue::List(_))) => {
                        copy_back(x, y)?
                    }
                    Some(_) => {
                        a.set(k, y.clone());
                    }
                    None => a.push(y.clone()),
                }
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// Runs a trace; `None` when a guard failed. Output is buffered so that a run abandoned at a
/// guard prints nothing, and when the trace writes tensors in place it runs on copies that are
/// written back only on success, so an abandoned run leaves the arguments untouched.
fn run_guarded(t: &Trace, args: &[IValue]) -> Result<Option<(IValue, Vec<u8>)>, TraceError> {
    let mut buf = Vec::new();
    let inplace = t.mutates();
    let run_args: Vec<IValue> = if inplace {
        args.iter().map(deep_clone).collect::<Result<_, _>>()?
    } else {
        args.to_vec()
    };
    match t.run(run_args.clone(), &mut buf) {
        Ok(v) => {
            if inplace {
                for (o, n) in args.iter().zip(&run_args) {
                    copy_back(o, n)?;
                }
            }
            Ok(Some((v, buf)))
        }
        Err(e) if e.is_guard_failure() => Ok(None),
        Err(e) => Err(e),
    }
}

/// One difference found by [`check_trace`].
#[derive(Clone, Debug, PartialEq)]
pub struct CheckMismatch {
    /// Index of the input set (0 is the example the reference trace was made on).
    pub input: usize,
    /// Guards whose recorded value differs between the two traces: the source lines that made
    /// the graphs differ, with the value each input gave.
    pub diverging: Vec<(Span, String)>,
    /// Lines of the graphs that differ (`- ` only in the reference trace, `+ ` only in this one).
    pub graph_diff: Vec<String>,
    /// How the reference trace run without guards (torch.jit.trace) differs from the eager result.
    pub result_diff: Option<String>,
    /// Where the reference trace's guards stop it on this input.
    pub guard_failure: Option<(Span, String)>,
}

/// The report of [`check_trace`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CheckReport {
    pub inputs: usize,
    pub mismatches: Vec<CheckMismatch>,
}

impl CheckReport {
    pub fn is_ok(&self) -> bool {
        self.mismatches.is_empty()
    }

    /// The report as text with rendered source locations.
    pub fn render(&self, file: &SourceFile) -> String {
        let mut s = String::new();
        if self.is_ok() {
            s.push_str(&format!(
                "check_trace: {} input sets trace the same graph and agree\n",
                self.inputs
            ));
            return s;
        }
        for m in &self.mismatches {
            let mut d = Diagnostic::warning(format!(
                "check_trace: input set {} traces a different graph than input set 0",
                m.input
            ));
            for (span, msg) in &m.diverging {
                d = d.with_primary(*span, msg.clone());
            }
            if let Some((span, msg)) = &m.guard_failure {
                d = d.with_note(format!(
                    "the guarded trace of input set 0 stops at {}: {msg}; pyjit re-traces there",
                    file.location(*span)
                ));
            }
            match &m.result_diff {
                Some(r) => d = d.with_note(format!(
                    "without guards (torch.jit.trace) the trace of input set 0 is wrong here: {r}"
                )),
                None => {
                    d = d.with_note(
                        "without guards the trace of input set 0 still gives the right result here",
                    )
                }
            }
            if !m.graph_diff.is_empty() {
                d = d.with_note(format!("graph difference:\n{}", m.graph_diff.join("\n")));
            }
            s.push_str(&d.render(file));
        }
        s
    }
}

/// Compares two results: `None` when they agree (tensors: same dtype and shape, values within
/// rtol 1e-5 / atol 1e-8, NaN equal to NaN), else a description of the first difference.
pub fn compare_values(a: &IValue, b: &IValue) -> Option<String> {
    match (a, b) {
        (IValue::Tensor(x), IValue::Tensor(y)) => {
            if x.dtype() != y.dtype() || x.shape() != y.shape() {
                return Some(format!(
                    "dtype/shape {:?} {:?} vs {:?} {:?}",
                    x.dtype(),
                    x.shape(),
                    y.dtype(),
                    y.shape()
                ));
            }
            let xs = x.to_vec::<f64>();
            let ys = y.to_vec::<f64>();
            let mut worst = 0.0f64;
            let mut bad = false;
            for (p, q) in xs.iter().zip(&ys) {
                let same =
                    (p.is_nan() && q.is_nan()) || p == q || (p - q).abs() <= 1e-8 + 1e-5 * q.abs();
                if !same {
                    bad = true;
                    worst = worst.max((p - q).abs());
                }
            }
            bad.then(|| {
                format!(
                    "tensors differ (max abs difference {})",
                    pyjit_runtime::print::python_float_repr(worst)
                )
            })
        }
        (IValue::Tuple(x), IValue::Tuple(y)) => {
            if x.len() != y.len() {
                return Some("tuples of different lengths".into());
            }
            x.iter()
                .zip(y.iter())
                .find_map(|(p, q)| compare_values(p, q))
        }
        (IValue::List(x), IValue::List(y)) => {
            let (x, y) = (x.snapshot(), y.snapshot());
            if x.len() != y.len() {
                return Some(format!("lists of lengths {} and {}", x.len(), y.len()));
            }
            x.iter()
                .zip(y.iter())
                .find_map(|(p, q)| compare_values(p, q))
        }
        (IValue::Float(x), IValue::Float(y)) => {
            (!((x.is_nan() && y.is_nan()) || x == y)).then(|| format!("{x} vs {y}"))
        }
        _ => {
            let (p, q) = (
                pyjit_value::format::py_repr(a),
                pyjit_value::format::py_repr(b),
            );
            (p != q).then(|| format!("{p} vs {q}"))
        }
    }
}

fn graph_lines(t: &Trace) -> Vec<String> {
    let mut m = t.module.clone();
    m.source = None;
    pyjit_ir::print_module_without_spans(&m)
        .lines()
        .map(str::to_string)
        .collect()
}

/// torch.jit.trace's `check_inputs`: traces on `inputs[0]`, then on every other input set;
/// diffs each graph with the first (naming the source lines whose guarded values differ), runs
/// the first trace without guards on the other inputs and compares with the eager results.
pub fn check_trace(
    file: &SourceFile,
    module: &ast::Module,
    name: &str,
    inputs: Vec<Vec<IValue>>,
    out: &mut dyn Write,
) -> Result<CheckReport, TraceError> {
    let mut it = inputs.into_iter();
    let Some(first) = it.next() else {
        return Ok(CheckReport::default());
    };
    let base = trace_function_to(file, module, name, first, TraceOptions::default(), out)?;
    let unguarded = base.without_guards();
    let base_lines = graph_lines(&base);
    let mut report = CheckReport {
        inputs: 1,
        mismatches: Vec::new(),
    };
    for (i, args) in it.enumerate() {
        let input = i + 1;
        report.inputs += 1;
        let other = trace_function_to(
            file,
            module,
            name,
            args.clone(),
            TraceOptions::default(),
            out,
        )?;
        let lines = graph_lines(&other);
        if lines == base_lines {
            continue;
        }
        // Both traces agree up to the first Python decision that went another way: report it.
        let mut diverging = Vec::new();
        let n = base.guards.len().max(other.guards.len());
        for k in 0..n {
            match (base.guards.get(k), other.guards.get(k)) {
                (Some(g), Some(o)) if g.span == o.span && g.expected == o.expected => continue,
                (Some(g), Some(o)) if g.span == o.span => diverging.push((
                    g.span,
                    format!(
                        "{}; with input set {input} it is {}",
                        g.message,
                        crate::record::const_text(&o.expected)
                    ),
                )),
                (Some(g), _) => diverging.push((
                    g.span,
                    format!("{}; input set {input} takes another path here", g.message),
                )),
                (None, Some(o)) => diverging.push((
                    o.span,
                    format!(
                        "input set {input} reaches this point, input set 0 did not: {}",
                        o.message
                    ),
                )),
                (None, None) => {}
            }
            break;
        }
        let mut graph_diff: Vec<String> = base_lines
            .iter()
            .filter(|l| !lines.contains(l))
            .map(|l| format!("- {l}"))
            .take(8)
            .collect();
        graph_diff.extend(
            lines
                .iter()
                .filter(|l| !base_lines.contains(l))
                .map(|l| format!("+ {l}"))
                .take(8),
        );
        let mut sink = Vec::new();
        let result_diff = match unguarded.run(deep_args(&args)?, &mut sink) {
            Ok(v) => compare_values(&v, &other.result),
            Err(e) => Some(format!("it raises {e}")),
        };
        let guard_failure = match base.run(deep_args(&args)?, &mut sink) {
            Err(e) if e.is_guard_failure() => Some((e.span, e.message)),
            _ => None,
        };
        report.mismatches.push(CheckMismatch {
            input,
            diverging,
            graph_diff,
            result_diff,
            guard_failure,
        });
    }
    Ok(report)
}

fn deep_args(args: &[IValue]) -> Result<Vec<IValue>, TraceError> {
    args.iter().map(deep_clone).collect()
}

/// Checks the IR a trace recorded; the verifier's errors joined with `; ` when it fails (a
/// tracer bug).
pub(crate) fn verify_recorded(m: &Module) -> Result<(), String> {
    pyjit_ir::verify_module(m).map_err(|errs| {
        errs.iter()
            .map(|e| e.to_string())
            .collect::<Vec<_>>()
            .join("; ")
    })
}
