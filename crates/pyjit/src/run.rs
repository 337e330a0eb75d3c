//! One `pyjit run` invocation, minus the process: compile a file, pick the function, parse and
//! fit the ARGs, call, and classify the outcome. The CLI maps the outcome to an exit status and
//! the corpus harness compares it with PyTorch's; both go through this one function so that what
//! is tested is what users run.

use crate::args::{ArgLit, fit_arg, parse_arg};
use crate::program::{Backend, CallError, Compilation, Options, Program, RunError};
use pyjit_interp::{CallSite, InterpError, Value};
use pyjit_ir::Type;
use pyjit_opt::manager::{OptLevel, PipelineConfig};
use pyjit_syntax::{Diagnostic, SourceFile};
use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// How a function is captured: scripted from source, traced, or evaluated eagerly.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Mode {
    /// Script the function from its source (`--mode script`, the default).
    #[default]
    Script,
    /// Trace it on the ARGs, with guards (`--mode trace`).
    Trace,
    /// Evaluate it op by op without compiling (`--mode eager`).
    Eager,
}

impl Mode {
    /// The name `--mode` takes.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Script => "script",
            Mode::Trace => "trace",
            Mode::Eager => "eager",
        }
    }
}

/// What to run.
#[derive(Clone, Debug)]
pub struct RunRequest {
    /// `-f NAME`; may be omitted when the file defines one function.
    pub function: Option<String>,
    /// The ARGs, unparsed.
    pub args: Vec<String>,
    /// Directory `.npy` paths are relative to.
    pub base_dir: PathBuf,
    /// How the function is captured.
    pub mode: Mode,
    /// Native code by default, as `pyjit run`.
    pub backend: Backend,
    /// The optimization pipeline (script mode, and trace mode's compiled traces), `-O2` by default.
    pub opt: PipelineConfig,
}

impl Default for RunRequest {
    fn default() -> RunRequest {
        RunRequest {
            function: None,
            args: Vec::new(),
            base_dir: PathBuf::new(),
            mode: Mode::default(),
            backend: Backend::Native,
            opt: PipelineConfig::for_level(OptLevel::O2),
        }
    }
}

/// Where a run's time went and what the compiler did (`pyjit run --time`, `--time-passes`,
/// `--print-after…`). Script mode, and trace mode on the native backend (its traces' compilations;
/// `run` then includes recording and compiling); the other modes leave it empty.
#[derive(Clone, Debug, Default)]
pub struct RunReport {
    /// Parsing and scripting.
    pub frontend: crate::program::FrontendTimes,
    /// The specializations compiled for the call, with their pass reports and codegen times.
    pub compilations: Vec<Compilation>,
    /// The call itself, compilation excluded (but see `run_includes`).
    pub run: Duration,
    /// What `run` includes besides running, when it cannot be split off (a traced call
    /// records the trace and compiles it while it runs).
    pub run_includes: Option<&'static str>,
}

impl RunReport {
    /// Total specialization time.
    pub fn specialize(&self) -> Duration {
        self.compilations.iter().map(|c| c.specialize).sum()
    }

    /// Total time in the optimization passes.
    pub fn passes(&self) -> Duration {
        self.compilations.iter().map(|c| c.passes.total_time).sum()
    }

    /// Total native code generation time: (verify + IR → Cranelift IR, Cranelift).
    pub fn codegen(&self) -> (Duration, Duration) {
        self.compilations
            .iter()
            .filter_map(|c| c.codegen.as_ref())
            .fold((Duration::ZERO, Duration::ZERO), |(l, c), t| {
                (l + t.verify + t.lower, c + t.cranelift)
            })
    }

    /// The `--time` listing: one line per phase.
    pub fn render_times(&self, backend: Backend) -> String {
        let ms = |d: Duration| format!("{:9.3} ms", d.as_secs_f64() * 1e3);
        let mut s = String::new();
        s.push_str(&format!("time: parse      {}\n", ms(self.frontend.parse)));
        // Only scripting has a frontend; only compilations have the later phases.
        if self.run_includes.is_none() {
            s.push_str(&format!(
                "time: frontend   {}\n",
                ms(self.frontend.frontend)
            ));
        }
        if self.run_includes.is_none() || !self.compilations.is_empty() {
            s.push_str(&format!("time: specialize {}\n", ms(self.specialize())));
            s.push_str(&format!("time: passes     {}\n", ms(self.passes())));
        }
        if backend == Backend::Native
            && (self.run_includes.is_none() || !self.compilations.is_empty())
        {
            let (lower, cranelift) = self.codegen();
            s.push_str(&format!("time: codegen    {}\n", ms(lower)));
            s.push_str(&format!("time: cranelift  {}\n", ms(cranelift)));
        }
        s.push_str(&format!(
            "time: run        {}  (--backend {}{})\n",
            ms(self.run),
            backend.name(),
            self.run_includes
                .map(|w| format!("; {w}"))
                .unwrap_or_default()
        ));
        s
    }
}

/// How a run ended.
#[derive(Debug)]
pub enum RunOutcome {
    /// The call returned; `ty` is the function's return type (the `.npz` writer needs it).
    Ok {
        /// What the call returned.
        value: Value,
        /// The function's return type.
        ty: Type,
    },
    /// The file does not compile.
    CompileError(Vec<Diagnostic>),
    /// The program raised at run time.
    RunError(RunError),
    /// The command line is wrong: unknown function, bad ARG, misfit argument, unsupported mode.
    Usage(String),
}

/// Runs `req` on `source`; `print` output goes to `out`.
pub fn run(source: SourceFile, req: &RunRequest, out: &mut dyn Write) -> RunOutcome {
    run_with_report(source, req, out).0
}

/// [`run`], also returning where the time went and what the passes did.
pub fn run_with_report(
    source: SourceFile,
    req: &RunRequest,
    out: &mut dyn Write,
) -> (RunOutcome, RunReport) {
    // ARG syntax errors are reported before compiling: they are the command line's fault.
    if let Some(e) = req.args.iter().find_map(|a| parse_arg(a).err()) {
        return (RunOutcome::Usage(e), RunReport::default());
    }
    if req.mode != Mode::Script {
        return run_dynamic(source, req, out);
    }
    let options = Options {
        backend: req.backend,
        opt: req.opt.clone(),
        ..Options::default()
    };
    let compiled = compile_for_args(source, options, req.function.as_deref(), &req.args);
    let program = match compiled {
        Ok(p) => p,
        Err(d) => return (RunOutcome::CompileError(d), RunReport::default()),
    };
    let mut run = Duration::ZERO;
    let outcome = run_program_timed(&program, req, out, &mut run);
    let report = RunReport {
        frontend: program.frontend_times(),
        compilations: program.compilations(),
        run,
        run_includes: None,
    };
    (outcome, report)
}

/// Compiles `source` for a call of `function` (`None`: the file's only one) with ARG words
/// `words`: in a NumPy-style module the scalar ARGs (`1000`, `0.5`, `True`) type the unannotated
/// parameters they are passed to ([`Program::compile_for_call`]); a torch-style module ignores
/// them. ARGs that do not parse are left to [`fit_call`] to report.
pub fn compile_for_args(
    source: SourceFile,
    options: Options,
    function: Option<&str>,
    words: &[String],
) -> Result<Program, Vec<Diagnostic>> {
    let spelled: Vec<Value> = words
        .iter()
        .map(|a| match parse_arg(a) {
            Ok(ArgLit::Int(i)) => Value::Int(i),
            Ok(ArgLit::Float(x)) => Value::Float(x),
            Ok(ArgLit::Bool(b)) => Value::Bool(b),
            _ => Value::None,
        })
        .collect();
    Program::compile_for_call(source, options, function, &spelled)
}

/// Runs `req` on an already compiled program (with the program's backend and optimization
/// pipeline; `req.mode`, `req.backend` and `req.opt` are not consulted). Callers that run many
/// requests on one file — the corpus harness — compile once and so share the native code cache
/// across calls.
pub fn run_program(program: &Program, req: &RunRequest, out: &mut dyn Write) -> RunOutcome {
    let mut run = Duration::ZERO;
    run_program_timed(program, req, out, &mut run)
}

/// [`run_program`], setting `run` to the time of the call alone (compilation for the call's
/// signature happens before, in [`Program::prepare`]).
fn run_program_timed(
    program: &Program,
    req: &RunRequest,
    out: &mut dyn Write,
    run: &mut Duration,
) -> RunOutcome {
    let name = match pick_function(program, req.function.as_deref()) {
        Ok(n) => n,
        Err(e) => return RunOutcome::Usage(e),
    };
    let ty = match program.return_type(&name) {
        Ok(t) => t,
        Err(e) => return RunOutcome::Usage(e.to_string()),
    };
    let args = match fit_call(program, &name, &req.args, &req.base_dir) {
        Ok(a) => a,
        Err(e) => return RunOutcome::Usage(e),
    };
    let called = program.prepare(&name, &args).and_then(|()| {
        let t = Instant::now();
        let r = program.call_with_output(&name, args, out);
        *run = t.elapsed();
        r
    });
    match called {
        Ok(value) => RunOutcome::Ok { value, ty },
        Err(CallError::Run(e)) => RunOutcome::RunError(e),
        Err(CallError::Codegen(m)) => RunOutcome::CompileError(vec![
            Diagnostic::error(format!("native code generation failed for {name}(): {m}"))
                .with_note("`--backend interp` runs the program on the reference interpreter"),
        ]),
        Err(e @ CallError::Specialize(_)) => {
            RunOutcome::CompileError(vec![Diagnostic::error(format!("{name}(): {e}"))])
        }
        Err(e) => RunOutcome::Usage(e.to_string()),
    }
}

/// The arguments of a call of `name` from ARG words (`x.npy`, `0.5`, `[1,2]`…): parsed, fitted to
/// the declared parameter types (`.npy` paths relative to `base`), defaults filling the missing
/// trailing ones. `Err` is a usage message (bad ARG, misfit, too many or too few).
pub fn fit_call(
    program: &Program,
    name: &str,
    words: &[String],
    base: &std::path::Path,
) -> Result<Vec<Value>, String> {
    let lits = words
        .iter()
        .map(|a| parse_arg(a))
        .collect::<Result<Vec<_>, _>>()?;
    let params = program.params(name).map_err(|e| e.to_string())?;
    if lits.len() > params.len() {
        return Err(format!(
            "{name}() takes {} argument(s) ({}) but {} were given",
            params.len(),
            params
                .iter()
                .map(|(n, _)| n.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            lits.len()
        ));
    }
    let defaults = program.defaults(name).unwrap_or_default();
    let mut args = Vec::with_capacity(params.len());
    for (i, (pname, pty)) in params.iter().enumerate() {
        match lits.get(i) {
            Some(lit) => args.push(fit_arg(lit, pty, pname, base)?),
            None => match defaults.get(i).cloned().flatten() {
                Some(v) => args.push(v),
                None => {
                    return Err(format!(
                        "{name}() is missing an argument for parameter `{pname}` ({pty})"
                    ));
                }
            },
        }
    }
    Ok(args)
}

/// The function to run: `-f NAME`, or the only function of the file.
pub fn pick_function(program: &Program, name: Option<&str>) -> Result<String, String> {
    let names = program.function_names();
    match name {
        Some(n) if names.contains(&n) => Ok(n.to_string()),
        Some(n) => Err(format!(
            "no function `{n}` in {}; it defines: {}",
            program.source().name,
            names.join(", ")
        )),
        None => match names.as_slice() {
            [only] => Ok(only.to_string()),
            [] => Err(format!("{} defines no function", program.source().name)),
            _ => Err(format!(
                "{} defines several functions; choose one with -f NAME: {}",
                program.source().name,
                names.join(", ")
            )),
        },
    }
}

/// `--mode eager` (the tracer's evaluator runs the function as Python would) and `--mode trace`
/// (the function is traced while it runs; TracerWarnings go to stderr). Neither needs the file
/// to script: when it does, ARGs are fitted to the declared parameter types as in script mode;
/// otherwise they keep the type their spelling gives ([`crate::traced::dynamic_call`], shared
/// with `pyjit trace`). With `--backend native`, traces are compiled with `req.opt` and the
/// report lists them; otherwise the report is empty.
fn run_dynamic(
    source: SourceFile,
    req: &RunRequest,
    out: &mut dyn Write,
) -> (RunOutcome, RunReport) {
    let mut report = RunReport::default();
    let t = Instant::now();
    let ast = match pyjit_syntax::parse_module(&source) {
        Ok(a) => a,
        Err(d) => return (RunOutcome::CompileError(d), report),
    };
    report.frontend.parse = t.elapsed();
    let call = match crate::traced::dynamic_call(
        &source,
        &ast,
        req.function.as_deref(),
        &req.args,
        &req.base_dir,
    ) {
        Ok(c) => c,
        Err(e) => return (RunOutcome::Usage(e), report),
    };
    let (name, args) = (call.name, call.args);
    let ty = call.ret.unwrap_or(Type::None);
    let t = Instant::now();
    let result = match req.mode {
        Mode::Eager => {
            let r = pyjit_trace::eval_function_to(&source, &ast, &name, args, out);
            report.run = t.elapsed();
            report.run_includes = Some("evaluated eagerly: nothing compiled");
            r
        }
        // The traces run as compiled code, guards included (see `traced`).
        Mode::Trace if req.backend == Backend::Native => {
            let (r, compilations) =
                crate::traced::call_once(source.clone(), ast, &name, args, req.opt.clone(), out);
            // Recording and compiling included: a traced call cannot be split as a scripted one.
            report.run = t.elapsed();
            report.run_includes = Some("recording and compiling the trace included");
            report.compilations = compilations;
            r
        }
        _ => {
            let mut traced = pyjit_trace::TracedFunction::new(
                source.clone(),
                ast,
                name.clone(),
                pyjit_trace::TraceOptions::default(),
            );
            let r = traced.call_to(args, out);
            report.run = t.elapsed();
            report.run_includes = Some("recording the trace included, run on the interpreter");
            for w in &traced.warnings {
                eprint!("{}", w.render(&source));
            }
            r
        }
    };
    let outcome = match result {
        Ok(value) => RunOutcome::Ok { value, ty },
        // A failure of the tracing machinery (an unsupported construct) is not the program's.
        Err(e) if e.kind == "TraceError" => RunOutcome::CompileError(vec![e.to_diagnostic()]),
        Err(e) => RunOutcome::RunError(RunError::new(
            InterpError {
                kind: e.kind,
                message: e.message,
                span: e.span,
                function: name,
                call_stack: e
                    .call_stack
                    .into_iter()
                    .map(|span| CallSite {
                        function: String::new(),
                        span,
                    })
                    .collect(),
                raised_by_program: e.raised_by_program,
            },
            std::sync::Arc::new(source),
        )),
    };
    (outcome, report)
}

/// An ARG with the type its spelling gives (no declared type to fit).
pub(crate) fn untyped_arg(lit: &ArgLit, base: &std::path::Path) -> Result<Value, String> {
    Ok(match lit {
        ArgLit::Npy(path) => {
            let full = base.join(path);
            Value::Tensor(
                pyjit_runtime::npy::read_npy(&full)
                    .map_err(|e| format!("cannot load `{}`: {e}", full.display()))?,
            )
        }
        ArgLit::Int(i) => Value::Int(*i),
        ArgLit::Float(x) => Value::Float(*x),
        ArgLit::Bool(b) => Value::Bool(*b),
        ArgLit::None => Value::None,
        ArgLit::List(items) => Value::list(
            items
                .iter()
                .map(|i| untyped_arg(i, base))
                .collect::<Result<_, _>>()?,
        ),
        ArgLit::Tuple(items) => Value::tuple(
            items
                .iter()
                .map(|i| untyped_arg(i, base))
                .collect::<Result<_, _>>()?,
        ),
    })
}
