//! `pyjit trace FILE.py [-f NAME] [ARG]... [--check-inputs "ARG..."]... [--no-guards]
//! [--backend native|interp] [--emit ir|clif|asm|dot|python] [-o OUT]`: trace a function on example ARGs
//! (same syntax as `pyjit run`), print the traced IR (or the Cranelift IR / machine code the
//! native backend makes of it, specialized for the ARGs) and its guards (stdout) and the
//! TracerWarnings (stderr), then run the compiled trace on the ARGs and print the result. With `--check-inputs`, re-trace
//! on each further input set and print `check_trace`'s report (stderr).
//!
//! The work is the facade's ([`pyjit::traced`]): the ARG parser and fitting of `pyjit run`, a
//! [`TracedProgram`] that compiles the trace like a scripted function, and the tracer's
//! `check_trace`. This module only prints and maps outcomes to the exit status:
//! 0 success, 1 the file does not parse or the function cannot be traced, 2 the program raised,
//! 3 `--check-inputs` found an input set that traces a different graph (torch.jit.trace's
//! `check_trace` raises `TracingCheckError` there), 64 bad usage.

use crate::compile::Emit;
use crate::run::{BackendArg, Target, Trailing};
use clap::Args;
use pyjit::SourceFile;
use pyjit::traced::{TraceError, TraceOptions, TracedProgram, check_trace, dynamic_call};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Exit status when `--check-inputs` finds a divergence.
pub const EXIT_CHECK_DIVERGES: u8 = 3;

#[derive(Args, Clone)]
pub struct TraceArgs {
    #[command(flatten)]
    pub target: Target,
    /// Another input set (ARGs in one string, e.g. "x2.npy 0.5"): re-trace on it and report
    /// whether the graphs and results differ, and which source lines made them differ.
    #[arg(long = "check-inputs", value_name = "ARGS")]
    pub check_inputs: Vec<String>,
    /// Record no guards: reuse the trace for every input, as torch.jit.trace does.
    #[arg(long = "no-guards")]
    pub no_guards: bool,
    /// What runs the trace: machine code (specialized and compiled like a scripted function) or
    /// the reference interpreter.
    #[arg(long, value_enum, default_value = "native")]
    pub backend: BackendArg,
    /// What to print of the trace.
    #[arg(long, value_enum, default_value = "ir")]
    pub emit: Emit,
    /// Write the result to OUT (.npy for one array, .npz for any result) instead of printing it.
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: Option<PathBuf>,
}

/// Options written after the first ARG: clap hands every word after it to us (ARGs may start
/// with `-`), and no ARG spelling starts with `--` or is `-f`/`-o`.
fn take_trailing_options(args: &mut TraceArgs) -> Result<(), String> {
    Trailing::new(&mut args.target)
        .output(&mut args.output)
        .backend(&mut args.backend)
        .switch("--no-guards", &mut args.no_guards)
        .take(&["--check-inputs", "--emit"], |flag, value| {
            match flag {
                "--check-inputs" => args.check_inputs.push(value),
                _ => args.emit = crate::compile::parse_emit(&value)?,
            }
            Ok(())
        })
}

/// The Cranelift IR or machine code of trace `t` specialized for the ARGs' signature: what the
/// native backend runs (through the same `Program` machinery as a scripted function).
fn native_listing(
    t: &pyjit::traced::Trace,
    emit: Emit,
    file: &SourceFile,
    ast: &pyjit_syntax::ast::Module,
    args: &TraceArgs,
) -> Result<String, String> {
    // The ARGs again: the run may have written into the first copy.
    let call = dynamic_call(
        file,
        ast,
        args.target.function.as_deref(),
        &args.target.args,
        Path::new("."),
    )?;
    let program = pyjit::Program::from_module(t.module.clone(), pyjit::Options::default())
        .map_err(|d| d.first().map(|d| d.message.clone()).unwrap_or_default())?;
    let name = &t.module.func(t.func).name;
    let (module, _) = program
        .specialize(name, &call.args)
        .map_err(|e| e.to_string())?;
    let text = match emit {
        Emit::Asm => pyjit::codegen::emit_asm(&module),
        _ => pyjit::codegen::emit_clif(&module),
    };
    text.map_err(|e| format!("native code generation failed: {e}"))
}

/// Prints a program's error (or the tracer's) and returns the exit status.
fn report_error(e: &TraceError, file: &SourceFile) -> u8 {
    eprint!("{}", e.to_diagnostic().render(file));
    if e.kind == "TraceError" {
        crate::EXIT_PROGRAM_ERROR
    } else {
        crate::run::EXIT_RUNTIME_ERROR
    }
}

pub fn run(args: &TraceArgs) -> u8 {
    let mut args = args.clone();
    if let Err(code) = crate::usage(take_trailing_options(&mut args)) {
        return code;
    }
    let file = match crate::run::read_source(&args.target.file) {
        Ok(f) => f,
        Err(code) => return code,
    };
    let ast = match crate::run::parse_source(&file) {
        Ok(a) => a,
        Err(code) => return code,
    };
    let base = PathBuf::from(".");
    let call = match crate::usage(dynamic_call(
        &file,
        &ast,
        args.target.function.as_deref(),
        &args.target.args,
        &base,
    )) {
        Ok(c) => c,
        Err(code) => return code,
    };
    // The check's input sets, fitted like the ARGs (the first one is re-read from the ARGs, so
    // that the run below cannot have written into it).
    let mut check_sets = Vec::new();
    if !args.check_inputs.is_empty() {
        for words in std::iter::once(Ok(args.target.args.clone())).chain(
            args.check_inputs
                .iter()
                .map(|s| pyjit::args::split_words(s)),
        ) {
            let set = words.and_then(|w| dynamic_call(&file, &ast, Some(&call.name), &w, &base));
            match set {
                Ok(c) => check_sets.push(c.args),
                Err(e) => {
                    eprintln!("error: --check-inputs: {e}");
                    return crate::EXIT_USAGE;
                }
            }
        }
    }
    let opts = if args.no_guards {
        TraceOptions::no_guards()
    } else {
        TraceOptions::default()
    };
    let backend = args.backend.backend();
    let mut traced = TracedProgram::new(file.clone(), ast.clone(), &call.name, opts, backend);
    // The compiled trace's `print`s are held back until the graph has been printed.
    let mut printed = Vec::new();
    let result = traced.call_to(call.args, &mut printed);
    let mut stdout = std::io::stdout().lock();
    let traces = traced.traces();
    if let Some(t) = traces.first() {
        let listing = match args.emit {
            Emit::Ir => Ok(t.print()),
            Emit::Dot => Ok(pyjit_graph::to_dot(&[pyjit_graph::Graph::of_function(
                &t.module,
                t.func,
                format!("traced: {}", call.name),
            )])),
            Emit::Python => Ok(pyjit_graph::to_python(&t.module, t.func, &[])),
            emit => native_listing(t, emit, &file, &ast, &args),
        };
        match listing {
            Ok(text) => {
                let _ = stdout.write_all(text.as_bytes());
            }
            Err(e) => {
                eprintln!("error: {e}");
                return crate::EXIT_PROGRAM_ERROR;
            }
        }
        let _ = writeln!(
            stdout,
            "# {} guard{}{}",
            t.guards.len(),
            if t.guards.len() == 1 { "" } else { "s" },
            if args.no_guards {
                " (--no-guards: every later call reuses this trace, as torch.jit.trace does)"
            } else if t.guards.is_empty() {
                ": every call with arguments of the same kinds, dtypes and ranks reuses this trace"
            } else {
                "; a call whose guarded values differ re-traces"
            }
        );
        for (k, g) in t.guards.iter().enumerate() {
            let _ = writeln!(
                stdout,
                "#   guard {k} at {}: {}",
                file.location(g.span),
                g.message
            );
        }
    }
    let _ = stdout.flush();
    for w in &traced.warnings {
        eprint!("{}", w.render(&file));
    }
    for n in &traced.notes {
        eprintln!("note: {n}");
    }
    let _ = stdout.write_all(&printed);
    let mut code = match result {
        Err(e) => {
            let _ = stdout.flush();
            return report_error(&e, &file);
        }
        Ok(value) => {
            let ret = call
                .ret
                .clone()
                .or_else(|| traces.first().map(|t| t.module.func(t.func).ret.clone()))
                .unwrap_or(pyjit::Type::None);
            let style = pyjit::output::result_style(&file);
            crate::run::write_result(args.output.as_deref(), &value, &ret, style, &mut stdout)
        }
    };
    let _ = stdout.flush();
    if traces.is_empty() {
        // The call was answered eagerly (the warning above says why): there is no trace.
        eprintln!("error: {}() could not be traced", call.name);
        return crate::EXIT_PROGRAM_ERROR;
    }
    if !check_sets.is_empty() {
        let mut sink = Vec::new();
        match check_trace(&file, &ast, &call.name, check_sets, &mut sink) {
            Ok(report) => {
                eprint!("{}", report.render(&file));
                if !report.is_ok() && code == 0 {
                    code = EXIT_CHECK_DIVERGES;
                }
            }
            Err(e) => return report_error(&e, &file),
        }
    }
    code
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(words: &[&str]) -> Result<TraceArgs, String> {
        let mut a = TraceArgs {
            target: Target {
                file: "f.py".into(),
                function: None,
                args: words.iter().map(|w| w.to_string()).collect(),
            },
            check_inputs: vec![],
            no_guards: false,
            backend: BackendArg::Native,
            emit: Emit::Ir,
            output: None,
        };
        take_trailing_options(&mut a).map(|()| a)
    }

    #[test]
    fn options_after_args() {
        let a = parsed(&[
            "x.npy",
            "-1.5",
            "--check-inputs",
            "y.npy 2",
            "--check-inputs=z.npy 3",
            "--no-guards",
            "-f",
            "g",
            "--backend",
            "interp",
            "--emit=clif",
        ])
        .unwrap();
        assert_eq!(a.target.args, vec!["x.npy", "-1.5"]);
        assert_eq!(a.check_inputs, vec!["y.npy 2", "z.npy 3"]);
        assert!(a.no_guards);
        assert_eq!(a.target.function.as_deref(), Some("g"));
        assert!(matches!(a.backend, BackendArg::Interp));
        assert!(matches!(a.emit, Emit::Clif));
        assert!(parsed(&["1", "--bogus"]).is_err());
        assert!(parsed(&["1", "--check-inputs"]).is_err());
        assert!(parsed(&["1", "--backend", "gpu"]).is_err());
    }
}
