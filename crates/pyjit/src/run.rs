//! One `pyjit run` invocation, minus the process: compile a file, pick the function, parse and
//! fit the ARGs, call, and classify the outcome. The CLI maps the outcome to an exit status and
//! the corpus harness compares it with PyTorch's; both go through this one function so that what
//! is tested is what users run.

use crate::args::{fit_arg, parse_arg};
use crate::program::{Backend, CallError, Options, Program, RunError};
use pyjit_interp::Value;
use pyjit_ir::Type;
use pyjit_syntax::{Diagnostic, SourceFile};
use std::io::Write;
use std::path::PathBuf;

/// How a function is captured: scripted from source, traced, or evaluated eagerly.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Mode {
    #[default]
    Script,
    Trace,
    Eager,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Script => "script",
            Mode::Trace => "trace",
            Mode::Eager => "eager",
        }
    }
}

/// What to run.
#[derive(Clone, Debug, Default)]
pub struct RunRequest {
    /// `-f NAME`; may be omitted when the file defines one function.
    pub function: Option<String>,
    /// The ARGs, unparsed.
    pub args: Vec<String>,
    /// Directory `.npy` paths are relative to.
    pub base_dir: PathBuf,
    pub mode: Mode,
    pub backend: Backend,
}

/// How a run ended.
#[derive(Debug)]
pub enum RunOutcome {
    /// The call returned; `ty` is the function's return type (the `.npz` writer needs it).
    Ok { value: Value, ty: Type },
    /// The file does not compile.
    CompileError(Vec<Diagnostic>),
    /// The program raised at run time.
    RunError(RunError),
    /// The command line is wrong: unknown function, bad ARG, misfit argument, unsupported mode.
    Usage(String),
}

/// Runs `req` on `source`; `print` output goes to `out`.
pub fn run(source: SourceFile, req: &RunRequest, out: &mut dyn Write) -> RunOutcome {
    match req.mode {
        Mode::Script => {}
        Mode::Trace | Mode::Eager => {
            return RunOutcome::Usage(format!(
                "--mode {} is not yet implemented (the tracer does not exist yet); use --mode script",
                req.mode.name()
            ));
        }
    }
    // ARG syntax errors are reported before compiling: they are the command line's fault.
    if let Some(e) = req.args.iter().find_map(|a| parse_arg(a).err()) {
        return RunOutcome::Usage(e);
    }
    let options = Options {
        backend: req.backend,
        ..Options::default()
    };
    let program = match Program::compile_with(source, options) {
        Ok(p) => p,
        Err(d) => return RunOutcome::CompileError(d),
    };
    run_program(&program, req, out)
}

/// Runs `req` on an already compiled program (with the program's backend; `req.mode` and
/// `req.backend` are not consulted). Callers that run many requests on one file — the corpus
/// harness — compile once and so share the native code cache across calls.
pub fn run_program(program: &Program, req: &RunRequest, out: &mut dyn Write) -> RunOutcome {
    let lits = match req
        .args
        .iter()
        .map(|a| parse_arg(a))
        .collect::<Result<Vec<_>, _>>()
    {
        Ok(l) => l,
        Err(e) => return RunOutcome::Usage(e),
    };
    let name = match pick_function(program, req.function.as_deref()) {
        Ok(n) => n,
        Err(e) => return RunOutcome::Usage(e),
    };
    let params = match program.params(&name) {
        Ok(p) => p,
        Err(e) => return RunOutcome::Usage(e.to_string()),
    };
    let ty = match program.return_type(&name) {
        Ok(t) => t,
        Err(e) => return RunOutcome::Usage(e.to_string()),
    };
    if lits.len() > params.len() {
        return RunOutcome::Usage(format!(
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
    let defaults = program.defaults(&name).unwrap_or_default();
    let mut args = Vec::with_capacity(params.len());
    for (i, (pname, pty)) in params.iter().enumerate() {
        match lits.get(i) {
            Some(lit) => match fit_arg(lit, pty, pname, &req.base_dir) {
                Ok(v) => args.push(v),
                Err(e) => return RunOutcome::Usage(e),
            },
            None => match defaults.get(i).cloned().flatten() {
                Some(v) => args.push(v),
                None => {
                    return RunOutcome::Usage(format!(
                        "{name}() is missing an argument for parameter `{pname}` ({pty})"
                    ));
                }
            },
        }
    }
    match program.call_with_output(&name, args, out) {
        Ok(value) => RunOutcome::Ok { value, ty },
        Err(CallError::Run(e)) => RunOutcome::RunError(e),
        Err(CallError::Codegen(m)) => RunOutcome::CompileError(vec![
            Diagnostic::error(format!("native code generation failed for {name}(): {m}"))
                .with_note("`--backend interp` runs the program on the reference interpreter"),
        ]),
        Err(e) => RunOutcome::Usage(e.to_string()),
    }
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
