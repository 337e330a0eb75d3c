//! Traced functions compiled like scripted ones: `pyjit run --mode trace --backend native` and
//! `pyjit trace`.
//!
//! The tracer ([`pyjit_trace`]) records one [`Trace`] per distinct path through the function:
//! IR with `guard` ops on every Python value that was derived from a tensor. Each trace here
//! becomes a [`Program`] ([`Program::from_module`]), so it goes through the very machinery that
//! runs scripted functions — specialization for the call's signature, then Cranelift code
//! generation, both cached per signature — and its guards are checked by the compiled code (the
//! `guard` op lowers to a compare and a cold `GuardFailure` exit).
//!
//! Re-trace policy (as [`pyjit_trace::TracedFunction`], which does the same on the
//! interpreter): a call runs the most recent trace recorded for arguments of the same structure
//! ([`signature_key`]); a failed guard tries the older ones, then records a new trace — at most
//! [`CACHE_LIMIT`] per function, after which calls are evaluated eagerly. A recording is made on
//! copies of the arguments with its output discarded, and then the compiled trace answers the
//! call, so every answer that is not an explicit fallback comes from compiled code. When the
//! native backend cannot compile a trace (an op it cannot lower), that trace runs on the
//! interpreter and a note says so; when a compiled trace raises, the call is re-run eagerly so
//! the error is exactly the eager program's. Nothing here returns an answer the eager program
//! would not (with guards on).
//!
//! ```
//! use pyjit::traced::{TraceOptions, TracedProgram};
//! use pyjit::{Backend, SourceFile, Value, runtime::Tensor};
//!
//! let src = "def conditional_op(x, threshold: float):\n    if x.sum() > threshold:\n        return x * 2\n    return x + 1\n";
//! let file = SourceFile::new("cond.py", src);
//! let x = |v: &[f32]| Value::Tensor(Tensor::from_slice(v));
//! let show = |v: Value| pyjit::output::display(&v);
//! let make = |opts| {
//!     TracedProgram::from_source(file.clone(), "conditional_op", opts, Backend::Native).unwrap()
//! };
//! let mut guarded = make(TraceOptions::default());
//! let mut unguarded = make(TraceOptions::no_guards());
//! for f in [&mut guarded, &mut unguarded] {
//!     // Traced on an input that takes the `x * 2` branch.
//!     let r = f.call(vec![x(&[1.0, 2.0]), Value::Float(0.0)]).unwrap();
//!     assert_eq!(show(r), "tensor([2., 4.])");
//! }
//! // A second input takes the other branch: the compiled guard fails and it re-traces...
//! let y = vec![x(&[-1.0, -2.0]), Value::Float(0.0)];
//! assert_eq!(show(guarded.call(y.clone()).unwrap()), "tensor([ 0., -1.])");
//! assert_eq!((guarded.stats.traces, guarded.stats.guard_failures), (2, 1));
//! // ...while without guards the first trace answers, wrongly, as torch.jit.trace does.
//! assert_eq!(show(unguarded.call(y).unwrap()), "tensor([-2., -4.])");
//! assert_eq!(guarded.native_runs + unguarded.native_runs, 4);
//! ```

use crate::args::{fit_arg, parse_arg};
use crate::program::{Backend, CallError, Compilation, Options, Program};
use pyjit_interp::{ExcKind, Value};
use pyjit_ir::{OpKind, Type};
use pyjit_opt::manager::{OptLevel, PipelineConfig};
use pyjit_syntax::{Diagnostic, SourceFile, Span, ast};
use pyjit_trace::{CACHE_LIMIT, signature_key, trace_function_to};
use std::io::Write;
use std::path::Path;

use pyjit_trace::copy_back;
/// The tracer's API, for tools built on the facade (`pyjit trace`).
pub use pyjit_trace::{
    CheckReport, Guard, GuardReason, Trace, TraceError, TraceOptions, TraceStats, check_trace,
    deep_clone, eval_function_to,
};

/// One cached trace and the program that runs it.
struct Entry {
    trace: Trace,
    program: Program,
    /// The traced function's name in `trace.module`.
    entry: String,
    /// Whether the trace writes tensors in place: then a run that may stop at a guard runs on
    /// copies of the arguments, written back only when it completes.
    mutates: bool,
}

/// A traced function whose traces run on a chosen backend (see the module docs).
pub struct TracedProgram {
    file: SourceFile,
    ast: ast::Module,
    name: String,
    opts: TraceOptions,
    backend: Backend,
    /// The optimization pipeline every trace's program runs (`-O2` unless [`Self::with_opt`]).
    opt: PipelineConfig,
    entries: Vec<Entry>,
    /// Traces recorded, cache hits, guard failures, eager fallbacks.
    pub stats: TraceStats,
    /// Calls answered by native code.
    pub native_runs: usize,
    /// Calls answered by a trace on the interpreter (backend `interp`, or a trace the native
    /// backend could not compile).
    pub interp_runs: usize,
    /// Every TracerWarning of every trace (a re-trace adds its own), plus a warning for each
    /// call that could not be traced and ran eagerly.
    pub warnings: Vec<Diagnostic>,
    /// Debug notes: which traces fell back to the interpreter, and why.
    pub notes: Vec<String>,
    /// Tests only: native compilation fails (the backend lowers every op the tracer records,
    /// so the fallback cannot be reached otherwise).
    #[cfg(test)]
    fail_native: bool,
}

/// How a guarded run of a cached trace ended.
enum Guarded {
    /// It completed: the result and what it printed.
    Done(Value, Vec<u8>),
    /// A guard failed: the trace does not apply to these arguments.
    GuardFailed,
    /// It raised; the error class and message, for the debug note.
    Raised(String),
}

impl TracedProgram {
    /// Prepares function `name` of the parsed `file` for tracing with `opts`; nothing runs
    /// until the first call, which traces it on that call's arguments and compiles the trace
    /// for `backend`.
    pub fn new(
        file: SourceFile,
        ast: ast::Module,
        name: impl Into<String>,
        opts: TraceOptions,
        backend: Backend,
    ) -> TracedProgram {
        TracedProgram {
            file,
            ast,
            name: name.into(),
            opts,
            backend,
            opt: PipelineConfig::for_level(OptLevel::O2),
            entries: Vec::new(),
            stats: TraceStats::default(),
            native_runs: 0,
            interp_runs: 0,
            warnings: Vec::new(),
            notes: Vec::new(),
            #[cfg(test)]
            fail_native: false,
        }
    }

    /// Parses `file` and wraps its function `name`.
    pub fn from_source(
        file: SourceFile,
        name: impl Into<String>,
        opts: TraceOptions,
        backend: Backend,
    ) -> Result<TracedProgram, Vec<Diagnostic>> {
        let ast = pyjit_syntax::parse_module(&file)?;
        Ok(TracedProgram::new(file, ast, name, opts, backend))
    }

    /// Optimizes the traces with `opt` (as [`Options::opt`] does for scripted programs) instead
    /// of the default `-O2` pipeline. Applies to traces recorded from now on.
    pub fn with_opt(mut self, opt: PipelineConfig) -> TracedProgram {
        self.opt = opt;
        self
    }

    /// What was compiled for the calls so far, trace by trace (oldest first): specializations
    /// with their pass reports and code generation times.
    pub fn compilations(&self) -> Vec<Compilation> {
        self.entries
            .iter()
            .flat_map(|e| e.program.compilations())
            .collect()
    }

    /// The source file of the traced function.
    pub fn source(&self) -> &SourceFile {
        &self.file
    }

    /// The traces recorded so far, oldest first.
    pub fn traces(&self) -> Vec<&Trace> {
        self.entries.iter().map(|e| &e.trace).collect()
    }

    /// The backend trace `i` runs on: the requested one, or the interpreter when native code
    /// generation failed for it.
    pub fn trace_backend(&self, i: usize) -> Option<Backend> {
        self.entries.get(i).map(|e| e.program.options().backend)
    }

    /// The program of the newest trace recorded for arguments of the structure of `args` (the
    /// one a call with them tries first), and its entry function's name; guards are not checked.
    pub fn program_for(&self, args: &[Value]) -> Option<(&Program, &str)> {
        let key = signature_key(args);
        self.entries
            .iter()
            .rev()
            .find(|e| !self.opts.guards || e.trace.key == key)
            .map(|e| (&e.program, e.entry.as_str()))
    }

    /// Calls the function, printing to stdout.
    pub fn call(&mut self, args: Vec<Value>) -> Result<Value, TraceError> {
        self.call_to(args, &mut std::io::stdout())
    }

    /// Calls the function, writing its `print` output to `out`.
    pub fn call_to(&mut self, args: Vec<Value>, out: &mut dyn Write) -> Result<Value, TraceError> {
        if !self.opts.guards {
            // torch.jit.trace: the first trace answers every later call, whatever the input.
            if !self.entries.is_empty() {
                self.stats.hits += 1;
                return self.run_entry(0, args, out).map_err(|e| self.call_error(e));
            }
        } else {
            let key = signature_key(&args);
            for i in (0..self.entries.len()).rev() {
                if self.entries[i].trace.key != key {
                    continue;
                }
                match self.run_guarded(i, &args)? {
                    Guarded::Done(v, printed) => {
                        self.stats.hits += 1;
                        write_out(out, &printed)?;
                        return Ok(v);
                    }
                    Guarded::GuardFailed => self.stats.guard_failures += 1,
                    // Re-run eagerly so the error (class, message, output printed before it)
                    // is exactly the eager program's.
                    Guarded::Raised(_) => return self.eager(args, out),
                }
            }
        }
        if self.entries.len() >= CACHE_LIMIT {
            self.stats.eager_fallbacks += 1;
            return self.eager(args, out);
        }
        self.record_and_run(args, out)
    }

    fn eager(&self, args: Vec<Value>, out: &mut dyn Write) -> Result<Value, TraceError> {
        eval_function_to(&self.file, &self.ast, &self.name, args, out)
    }

    /// Records a trace on copies of `args` (its output discarded), compiles it and answers the
    /// call with it.
    fn record_and_run(
        &mut self,
        args: Vec<Value>,
        out: &mut dyn Write,
    ) -> Result<Value, TraceError> {
        let copies = args.iter().map(deep_clone).collect::<Result<Vec<_>, _>>()?;
        let mut sink = Vec::new();
        let trace = match trace_function_to(
            &self.file, &self.ast, &self.name, copies, self.opts, &mut sink,
        ) {
            Ok(t) => t,
            Err(e) => {
                // Either the program raised (the eager run raises the same, printing what it
                // printed) or the run cannot leave a trace (then the eager answer stands).
                let r = self.eager(args, out);
                if r.is_ok() {
                    self.stats.eager_fallbacks += 1;
                    self.warnings.push(
                        Diagnostic::warning(format!(
                            "this call could not be traced and ran eagerly: {e}"
                        ))
                        .with_primary(e.span, "cannot be traced"),
                    );
                }
                return r;
            }
        };
        self.stats.traces += 1;
        self.warnings.extend(trace.warnings.iter().cloned());
        self.warnings.extend(unrolled_loop_warning(&trace));
        let options = Options {
            backend: self.backend,
            opt: self.opt.clone(),
            ..Options::default()
        };
        let entry = trace.module.func(trace.func).name.clone();
        let mutates = trace.mutates();
        let program = match Program::from_module(trace.module.clone(), options) {
            Ok(p) => p,
            Err(d) => {
                // The tracer verifies what it hands out, so this is a bug; the eager answer
                // is still right.
                let why = d.first().map(|d| d.message.clone()).unwrap_or_default();
                self.notes
                    .push(format!("trace of {}() not runnable: {why}", self.name));
                self.stats.eager_fallbacks += 1;
                return self.eager(args, out);
            }
        };
        self.entries.push(Entry {
            trace,
            program,
            entry,
            mutates,
        });
        let i = self.entries.len() - 1;
        if !self.opts.guards {
            return self.run_entry(i, args, out).map_err(|e| self.call_error(e));
        }
        match self.run_guarded(i, &args)? {
            Guarded::Done(v, printed) => {
                write_out(out, &printed)?;
                Ok(v)
            }
            // The compiled trace disagrees with the recording on the very same input (a float
            // comparison on the edge, a nondeterministic op): the eager answer is the right one.
            Guarded::GuardFailed => {
                self.stats.guard_failures += 1;
                self.stats.eager_fallbacks += 1;
                self.notes.push(format!(
                    "trace {} of {}() failed a guard on the input it was recorded on; this call ran eagerly",
                    i + 1,
                    self.name
                ));
                self.eager(args, out)
            }
            Guarded::Raised(why) => {
                self.notes.push(format!(
                    "trace {} of {}() raised on the input it was recorded on ({why}); this call ran eagerly",
                    i + 1,
                    self.name
                ));
                self.eager(args, out)
            }
        }
    }

    /// Runs trace `i` on its program; when the native backend cannot compile it, switches that
    /// trace to the interpreter (once, with a note) and runs it there.
    fn run_entry(
        &mut self,
        i: usize,
        args: Vec<Value>,
        out: &mut dyn Write,
    ) -> Result<Value, CallError> {
        loop {
            let e = &mut self.entries[i];
            let backend = e.program.options().backend;
            #[cfg(test)]
            let injected = self.fail_native && backend == Backend::Native;
            #[cfg(not(test))]
            let injected = false;
            let r = if injected {
                Err(CallError::Codegen("injected by a test".into()))
            } else {
                e.program.call_with_output(&e.entry, args.clone(), out)
            };
            match r {
                Err(CallError::Codegen(why) | CallError::Specialize(why))
                    if backend == Backend::Native =>
                {
                    self.notes.push(format!(
                        "trace {} of {}() runs on the interpreter: native compilation failed: {why}",
                        i + 1,
                        self.name
                    ));
                    e.program.set_backend(Backend::Interp);
                }
                r => {
                    if r.is_ok() {
                        match backend {
                            Backend::Native => self.native_runs += 1,
                            Backend::Interp => self.interp_runs += 1,
                        }
                    }
                    return r;
                }
            }
        }
    }

    /// Runs trace `i` with guards: output is buffered so that a run abandoned at a guard prints
    /// nothing, and a trace that writes in place runs on copies written back only on success.
    fn run_guarded(&mut self, i: usize, args: &[Value]) -> Result<Guarded, TraceError> {
        let mutates = self.entries[i].mutates;
        let run_args: Vec<Value> = if mutates {
            args.iter().map(deep_clone).collect::<Result<_, _>>()?
        } else {
            args.to_vec()
        };
        let mut buf = Vec::new();
        match self.run_entry(i, run_args.clone(), &mut buf) {
            Ok(v) => {
                if mutates {
                    for (o, n) in args.iter().zip(&run_args) {
                        copy_back(o, n)?;
                    }
                }
                Ok(Guarded::Done(v, buf))
            }
            Err(CallError::Run(e)) if e.error.is_guard_failure() => Ok(Guarded::GuardFailed),
            Err(e) => Ok(Guarded::Raised(e.to_string())),
        }
    }

    /// A failed call of a trace as the tracer's error type.
    fn call_error(&self, e: CallError) -> TraceError {
        match e {
            CallError::Run(e) => TraceError::from(e.error),
            other => TraceError::new(ExcKind::TypeError, other.to_string(), Span::DUMMY),
        }
    }
}

fn write_out(out: &mut dyn Write, bytes: &[u8]) -> Result<(), TraceError> {
    out.write_all(bytes)
        .map_err(|e| TraceError::new(ExcKind::OSError, e.to_string(), Span::DUMMY))
}

/// How many copies of one source operation make a trace worth a warning: tracing unrolls loops,
/// and a few thousand iterations make both the tracing and the compiled code slow.
pub const UNROLL_WARNING: usize = 2000;

/// A warning when trace `t` holds more than [`UNROLL_WARNING`] copies of one source operation,
/// at the operation recorded most often.
fn unrolled_loop_warning(t: &Trace) -> Option<Diagnostic> {
    let f = t.module.func(t.func);
    let mut counts: std::collections::HashMap<Span, usize> = std::collections::HashMap::new();
    for op in f.all_ops() {
        let d = f.op(op);
        if matches!(d.kind, OpKind::Tensor(_)) && !d.span.is_empty() {
            *counts.entry(d.span).or_default() += 1;
        }
    }
    let (&span, &n) = counts
        .iter()
        .max_by_key(|(s, n)| (**n, std::cmp::Reverse(**s)))?;
    (n > UNROLL_WARNING).then(|| {
        Diagnostic::warning(format!(
            "the trace unrolled a loop: it holds {n} copies of this operation ({} ops in all), one per iteration",
            f.all_ops().len()
        ))
        .with_primary(span, format!("recorded {n} times"))
        .with_help(
            "scripting keeps this loop as one loop, whatever its trip count: try `--mode script`",
        )
    })
}

/// `pyjit run --mode trace --backend native`: one call of function `name` — traced on copies
/// of `args`, compiled with the pipeline `opt`, and run — with the TracerWarnings and debug
/// notes on stderr. Also returns what was compiled (for `--time-passes`, `--print-after…`).
pub fn call_once(
    file: SourceFile,
    ast: ast::Module,
    name: &str,
    args: Vec<Value>,
    opt: PipelineConfig,
    out: &mut dyn Write,
) -> (Result<Value, TraceError>, Vec<Compilation>) {
    let mut f =
        TracedProgram::new(file, ast, name, TraceOptions::default(), Backend::Native).with_opt(opt);
    let r = f.call_to(args, out);
    for w in &f.warnings {
        eprint!("{}", w.render(&f.file));
    }
    for n in &f.notes {
        eprintln!("note: {n}");
    }
    (r, f.compilations())
}

/// A call of a dynamically captured function (`--mode trace|eager`, `pyjit trace`): the function
/// chosen, its arguments, and its declared return type when the file also scripts.
#[derive(Clone, Debug)]
pub struct DynamicCall {
    /// The function's name.
    pub name: String,
    /// The arguments, fitted to the parameters.
    pub args: Vec<Value>,
    /// The declared return type (for `-o X.npz`), when the file scripts; else `None`.
    pub ret: Option<Type>,
}

/// Picks function `function` (or the file's only one) and turns ARG words (the syntax of
/// [`crate::args`]) into values: fitted to the declared parameter types when the file also
/// scripts, else with the type their spelling gives. `.npy` paths are relative to `base`.
pub fn dynamic_call(
    source: &SourceFile,
    ast: &ast::Module,
    function: Option<&str>,
    words: &[String],
    base: &Path,
) -> Result<DynamicCall, String> {
    let lits = words
        .iter()
        .map(|w| parse_arg(w))
        .collect::<Result<Vec<_>, _>>()?;
    let names = pyjit_script::function_names(ast);
    let name = match (function, names.as_slice()) {
        (Some(n), _) if names.iter().any(|m| m == n) => n.to_string(),
        (Some(n), _) => {
            return Err(format!(
                "no function `{n}` in {}; it defines: {}",
                source.name,
                names.join(", ")
            ));
        }
        (None, [only]) => only.clone(),
        (None, _) => {
            return Err(format!(
                "{} defines {} functions; choose one with -f NAME: {}",
                source.name,
                if names.is_empty() { "no" } else { "several" },
                names.join(", ")
            ));
        }
    };
    // Typed as script mode types it: in a NumPy-style module the scalar ARGs type the
    // unannotated parameters they are passed to.
    let typed = crate::run::compile_for_args(
        source.clone(),
        crate::Options::default(),
        Some(&name),
        words,
    )
    .ok();
    let params = typed.as_ref().and_then(|p| p.params(&name).ok());
    let ret = typed.as_ref().and_then(|p| p.return_type(&name).ok());
    let args = lits
        .iter()
        .enumerate()
        .map(|(i, lit)| match params.as_ref().and_then(|ps| ps.get(i)) {
            Some((pname, pty)) => fit_arg(lit, pty, pname, base),
            None => crate::run::untyped_arg(lit, base),
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(DynamicCall { name, args, ret })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_values::{t, vals};

    const COND: &str = "def conditional_op(x, threshold: float):\n    if x.sum() > threshold:\n        return x * 2\n    return x + 1\n";

    fn traced(src: &str, name: &str, opts: TraceOptions) -> TracedProgram {
        TracedProgram::from_source(SourceFile::new("t.py", src), name, opts, Backend::Native)
            .expect("parses")
    }

    #[test]
    fn guards_are_checked_by_native_code_and_retrace() {
        let mut f = traced(COND, "conditional_op", TraceOptions::default());
        let mut out = Vec::new();
        let a = f.call_to(vec![t(&[1.0, 2.0]), Value::Float(0.0)], &mut out);
        assert_eq!(vals(&a.unwrap()), vec![2.0, 4.0]);
        // Same branch: a cache hit on native code.
        let b = f.call_to(vec![t(&[3.0, 4.0]), Value::Float(0.0)], &mut out);
        assert_eq!(vals(&b.unwrap()), vec![6.0, 8.0]);
        // Other branch: the compiled guard fails, it re-traces, the answer is x + 1.
        let c = f.call_to(vec![t(&[-1.0, -2.0]), Value::Float(0.0)], &mut out);
        assert_eq!(vals(&c.unwrap()), vec![0.0, -1.0]);
        assert_eq!(f.stats.traces, 2);
        assert_eq!(f.stats.guard_failures, 1);
        assert_eq!(f.stats.hits, 1);
        assert_eq!(f.native_runs, 3, "notes: {:?}", f.notes);
        assert_eq!(f.interp_runs, 0);
        assert_eq!(f.trace_backend(1), Some(Backend::Native));
        let ir = f.traces()[0].print();
        assert!(ir.contains("guard"), "{ir}");
    }

    #[test]
    fn a_trace_native_code_cannot_run_falls_back_to_the_interpreter_with_a_note() {
        let mut f = traced(COND, "conditional_op", TraceOptions::default());
        f.fail_native = true;
        let mut out = Vec::new();
        let a = f.call_to(vec![t(&[1.0, 2.0]), Value::Float(0.0)], &mut out);
        assert_eq!(vals(&a.unwrap()), vec![2.0, 4.0]);
        let b = f.call_to(vec![t(&[-1.0, -2.0]), Value::Float(0.0)], &mut out);
        assert_eq!(vals(&b.unwrap()), vec![0.0, -1.0]);
        // Both traces run on the interpreter (guards checked there), one note each.
        assert_eq!((f.native_runs, f.interp_runs), (0, 2));
        assert_eq!(f.trace_backend(0), Some(Backend::Interp));
        assert_eq!(f.stats.guard_failures, 1);
        assert_eq!(f.notes.len(), 2, "{:?}", f.notes);
        assert!(
            f.notes[0].contains("trace 1 of conditional_op() runs on the interpreter")
                && f.notes[0].contains("injected by a test"),
            "{:?}",
            f.notes
        );
    }

    #[test]
    fn after_eight_traces_calls_are_eager() {
        let src = "def f(x, n: int):\n    for i in range(n):\n        x = x + 1\n    return x\n";
        let mut f = traced(src, "f", TraceOptions::default());
        let mut out = Vec::new();
        for n in 0..11 {
            let r = f.call_to(vec![t(&[0.5]), Value::Int(n)], &mut out).unwrap();
            assert_eq!(vals(&r), vec![0.5 + n as f32]);
        }
        assert_eq!(f.stats.traces, pyjit_trace::CACHE_LIMIT);
        assert_eq!(f.stats.eager_fallbacks, 11 - pyjit_trace::CACHE_LIMIT);
        assert_eq!(f.native_runs, pyjit_trace::CACHE_LIMIT);
        // A value seen before still hits its trace.
        let r = f.call_to(vec![t(&[0.5]), Value::Int(3)], &mut out).unwrap();
        assert_eq!(vals(&r), vec![3.5]);
        assert_eq!(f.stats.hits, 1);
    }

    #[test]
    fn a_trace_that_unrolls_thousands_of_iterations_says_so() {
        let src = "def f(x, n: int):\n    for i in range(n):\n        x = x + 1\n    return x\n";
        let file = SourceFile::new("t.py", src);
        for (n, warned) in [(UNROLL_WARNING, false), (UNROLL_WARNING + 1, true)] {
            let mut f = TracedProgram::from_source(
                file.clone(),
                "f",
                TraceOptions::default(),
                Backend::Interp,
            )
            .expect("parses");
            let r = f.call_to(vec![t(&[0.0]), Value::Int(n as i64)], &mut Vec::new());
            assert_eq!(vals(&r.unwrap()), vec![n as f32]);
            let w: Vec<String> = f.warnings.iter().map(|w| w.render(&file)).collect();
            let hit = w.iter().find(|w| w.contains("the trace unrolled a loop"));
            assert_eq!(hit.is_some(), warned, "{n}: {w:?}");
            if let Some(w) = hit {
                assert!(w.contains(&format!("holds {n} copies")), "{w}");
                assert!(w.contains("t.py:3:13"), "at the loop body's op: {w}");
                assert!(w.contains("try `--mode script`"), "{w}");
            }
        }
    }

    #[test]
    fn no_guards_is_wrong_like_torch_jit_trace() {
        let mut f = traced(COND, "conditional_op", TraceOptions::no_guards());
        let mut out = Vec::new();
        f.call_to(vec![t(&[1.0, 2.0]), Value::Float(0.0)], &mut out)
            .unwrap();
        let c = f.call_to(vec![t(&[-1.0, -2.0]), Value::Float(0.0)], &mut out);
        // torch.jit.trace's answer: the recorded `x * 2` branch.
        assert_eq!(vals(&c.unwrap()), vec![-2.0, -4.0]);
        assert_eq!(f.stats.traces, 1);
        assert_eq!(f.native_runs, 2);
    }

    #[test]
    fn in_place_writes_survive_and_failed_guards_leave_arguments_alone() {
        let src = "def f(x, y):\n    x.add_(1.0)\n    if y.sum() > 0:\n        return x * 2\n    return x\n";
        let mut f = traced(src, "f", TraceOptions::default());
        let mut out = Vec::new();
        let x: Value = t(&[1.0]);
        f.call_to(vec![x.clone(), t(&[1.0])], &mut out).unwrap();
        assert_eq!(
            vals(&x),
            vec![2.0],
            "recording runs on copies, the compiled run writes"
        );
        let r = f.call_to(vec![x.clone(), t(&[-1.0])], &mut out).unwrap();
        // The first trace stops at its guard after add_ ran on a copy: x is incremented once.
        assert_eq!(vals(&x), vec![3.0]);
        assert_eq!(vals(&r), vec![3.0]);
    }

    #[test]
    fn prints_once_per_call_and_errors_are_eager() {
        let src = "def f(x, n: int):\n    print(n)\n    if n > 2:\n        raise ValueError('big')\n    return x + n\n";
        let mut f = traced(src, "f", TraceOptions::default());
        let mut out = Vec::new();
        f.call_to(vec![t(&[1.0]), Value::Int(1)], &mut out).unwrap();
        f.call_to(vec![t(&[1.0]), Value::Int(1)], &mut out).unwrap();
        let e = f
            .call_to(vec![t(&[1.0]), Value::Int(5)], &mut out)
            .unwrap_err();
        assert_eq!((e.kind.name(), e.message.as_str()), ("ValueError", "big"));
        assert_eq!(String::from_utf8_lossy(&out), "1\n1\n5\n");
    }

    #[test]
    fn traces_are_optimized_at_the_requested_level() {
        let run = |opt: Option<OptLevel>| {
            let mut f = traced(COND, "conditional_op", TraceOptions::default());
            if let Some(level) = opt {
                f = f.with_opt(PipelineConfig::for_level(level));
            }
            let mut out = Vec::new();
            let r = f.call_to(vec![t(&[1.0, 2.0]), Value::Float(0.0)], &mut out);
            let passes: Vec<Vec<String>> = f
                .compilations()
                .iter()
                .map(|c| c.passes.runs.iter().map(|r| r.pass.to_string()).collect())
                .collect();
            (vals(&r.unwrap()), passes)
        };
        let (o0, o0_passes) = run(Some(OptLevel::O0));
        let (o2, o2_passes) = run(None);
        assert_eq!(o0, o2);
        assert_eq!(o2, vec![2.0, 4.0]);
        assert_eq!(
            o0_passes,
            vec![Vec::<String>::new()],
            "one compilation, no pass"
        );
        let pipeline: Vec<String> = OptLevel::O2
            .pipeline()
            .iter()
            .map(|p| p.to_string())
            .collect();
        assert_eq!(o2_passes, vec![pipeline], "-O2 by default");
    }

    #[test]
    fn dynamic_call_fits_declared_types() {
        let call = |src: &str, name: Option<&str>, words: &[&str]| {
            let file = SourceFile::new("t.py", src);
            let ast = pyjit_syntax::parse_module(&file).unwrap();
            let words: Vec<String> = words.iter().map(|w| w.to_string()).collect();
            dynamic_call(&file, &ast, name, &words, Path::new("."))
        };
        // The file scripts: `3` is fitted to the `float` parameter.
        let typed = "def g(a: float, b: int) -> float:\n    return a + b\n";
        let c = call(typed, None, &["3", "4"]).unwrap();
        assert_eq!(c.name, "g");
        assert!(matches!(c.args[..], [Value::Float(a), Value::Int(4)] if a == 3.0));
        assert_eq!(c.ret, Some(Type::Float));
        // It does not (a set display): ARGs keep their spelling's type.
        let dynamic = "def h(a, b):\n    y = {1, 2}\n    return a\n";
        let c = call(dynamic, Some("h"), &["3", "[1, 2.5]"]).unwrap();
        assert!(matches!(c.args[0], Value::Int(3)));
        assert!(matches!(&c.args[1], Value::List(l) if l.len() == 2));
        assert_eq!(c.ret, None);
        assert!(call(typed, Some("nope"), &[]).is_err());
        assert!(call(typed, None, &["[1,"]).is_err());
        assert!(call(typed, None, &["[1]", "2"]).is_err(), "misfit");
    }
}
