//! `pyjit bench FILE.py [-f NAME] [ARG]... [--repeat N] [--warmup K] [--json]
//! [--mode script|trace|eager] [--backend native|interp] [-O0|-O1|-O2 ...]`: time a function
//! properly. First the compile phases (parse, frontend, and for the call's signature specialize,
//! passes, codegen, Cranelift) and the first call; then K warm-up calls and N timed calls, of
//! which it reports the minimum, the median and the interquartile range. Each call gets a fresh
//! deep copy of the ARGs (made outside the timing), so in-place writes do not leak from one call
//! into the next; `--reuse-args` passes the same ARGs to every call instead, back to back, as
//! Python harnesses time a function (for functions that do not write their arguments: the copy
//! between two calls also lets the kernel pool's helper threads go to sleep, so each call pays
//! their wake-up). A progress bar shows on a terminal when the calls should take more than a
//! second; `--json` prints one JSON object on one line (stdout) for scripts instead of the table.
//!
//! Exit status: 0 success, 1 compile-time error, 2 the program raised, 64 bad usage.

use crate::run::{CallArgs, ModeArg, Trailing};
use clap::Args;
use pyjit::run::RunReport;
use pyjit::traced::{TraceOptions, TracedProgram, deep_clone, dynamic_call};
use pyjit::{Program, SourceFile, Value};
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

#[derive(Args, Clone)]
pub struct BenchArgs {
    #[command(flatten)]
    pub call: CallArgs,
    /// Timed calls.
    #[arg(long, default_value_t = 100, value_name = "N")]
    pub repeat: usize,
    /// Untimed calls after the first one, before the timed ones.
    #[arg(long, default_value_t = 10, value_name = "K")]
    pub warmup: usize,
    /// Print one JSON line (stdout) instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Pass the same ARGs to every call, back to back (no fresh copy per call: only for a
    /// function that does not write its arguments).
    #[arg(long)]
    pub reuse_args: bool,
}

/// Options written after the first ARG (see `run::take_trailing_options`).
fn take_trailing_options(args: &mut BenchArgs) -> Result<(), String> {
    Trailing::call(&mut args.call)
        .switch("--json", &mut args.json)
        .switch("--reuse-args", &mut args.reuse_args)
        .take(&["--repeat", "--warmup"], |flag, value| {
            let count = |v: &str| {
                v.parse::<usize>()
                    .map_err(|_| format!("{flag} needs a count, not `{v}`"))
            };
            match flag {
                "--repeat" => args.repeat = count(&value)?,
                _ => args.warmup = count(&value)?,
            }
            Ok(())
        })?;
    if args.repeat == 0 {
        return Err("--repeat must be at least 1".into());
    }
    Ok(())
}

/// Where compile time went, as the facade's report of a run sums it (all zero in eager mode,
/// which compiles nothing), phase by phase.
fn phases(report: &RunReport) -> [(&'static str, Duration); 6] {
    let (codegen, cranelift) = report.codegen();
    [
        ("parse", report.frontend.parse),
        ("frontend", report.frontend.frontend),
        ("specialize", report.specialize()),
        ("passes", report.passes()),
        ("codegen", codegen),
        ("cranelift", cranelift),
    ]
}

/// One way of calling the function again and again.
enum Callee {
    Script {
        program: Box<Program>,
        name: String,
    },
    Trace(Box<TracedProgram>, SourceFile),
    Eager {
        file: SourceFile,
        ast: pyjit_syntax::ast::Module,
        name: String,
    },
}

impl Callee {
    fn call(&mut self, args: Vec<Value>) -> Result<(), String> {
        let mut sink = std::io::sink();
        match self {
            Callee::Script { program, name } => program
                .call_with_output(name, args, &mut sink)
                .map(|_| ())
                .map_err(|e| match e {
                    pyjit::CallError::Run(e) => e.render(),
                    e => format!("error: {e}\n"),
                }),
            Callee::Trace(t, file) => t
                .call_to(args, &mut sink)
                .map(|_| ())
                .map_err(|e| e.to_diagnostic().render(file)),
            Callee::Eager { file, ast, name } => {
                pyjit::traced::eval_function_to(file, ast, name, args, &mut sink)
                    .map(|_| ())
                    .map_err(|e| e.to_diagnostic().render(file))
            }
        }
    }
}

/// The `q`-quantile of sorted `xs`, interpolated linearly (NumPy's default).
fn quantile(xs: &[f64], q: f64) -> f64 {
    if xs.is_empty() {
        return 0.0;
    }
    let pos = q * (xs.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    xs[lo] + (xs[hi] - xs[lo]) * (pos - lo as f64)
}

/// A duration for people: ns, µs, ms or s with 3 significant digits or so.
fn human(secs: f64) -> String {
    if secs < 1e-6 {
        format!("{:.0} ns", secs * 1e9)
    } else if secs < 1e-3 {
        format!("{:.2} µs", secs * 1e6)
    } else if secs < 1.0 {
        format!("{:.3} ms", secs * 1e3)
    } else {
        format!("{secs:.3} s")
    }
}

fn fresh(args: &[Value]) -> Result<Vec<Value>, String> {
    args.iter()
        .map(|v| deep_clone(v).map_err(|e| e.message))
        .collect()
}

pub fn run(args: &BenchArgs) -> u8 {
    let (args, opt) = match crate::run::take_options(args, take_trailing_options, |a| &a.call.opt) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let how = &args.call;
    let file = match crate::run::read_source(&how.target.file) {
        Ok(f) => f,
        Err(code) => return code,
    };
    let backend = how.backend.backend();
    let mut report = RunReport::default();
    let base = Path::new(".");
    // Capture (and, scripted, compile the file).
    let (mut callee, call_args, name) = match how.mode {
        ModeArg::Script => {
            let options = pyjit::Options {
                backend,
                opt: opt.clone(),
                ..pyjit::Options::default()
            };
            let program = match crate::run::compile_source(
                &file,
                options,
                how.target.function.as_deref(),
                &how.target.args,
            ) {
                Ok(p) => p,
                Err(code) => return code,
            };
            report.frontend = program.frontend_times();
            let fitted = pyjit::run::pick_function(&program, how.target.function.as_deref())
                .and_then(|name| {
                    pyjit::run::fit_call(&program, &name, &how.target.args, base).map(|a| (name, a))
                });
            let (name, call_args) = match crate::usage(fitted) {
                Ok(x) => x,
                Err(code) => return code,
            };
            (
                Callee::Script {
                    program: Box::new(program),
                    name: name.clone(),
                },
                call_args,
                name,
            )
        }
        ModeArg::Trace | ModeArg::Eager => {
            let t = Instant::now();
            let ast = match crate::run::parse_source(&file) {
                Ok(a) => a,
                Err(code) => return code,
            };
            report.frontend.parse = t.elapsed();
            let call = match crate::usage(dynamic_call(
                &file,
                &ast,
                how.target.function.as_deref(),
                &how.target.args,
                base,
            )) {
                Ok(c) => c,
                Err(code) => return code,
            };
            let callee = if matches!(how.mode, ModeArg::Trace) {
                Callee::Trace(
                    Box::new(
                        TracedProgram::new(
                            file.clone(),
                            ast,
                            &call.name,
                            TraceOptions::default(),
                            backend,
                        )
                        .with_opt(opt.clone()),
                    ),
                    file.clone(),
                )
            } else {
                Callee::Eager {
                    file: file.clone(),
                    ast,
                    name: call.name.clone(),
                }
            };
            (callee, call.args, call.name)
        }
    };

    let reuse = args.reuse_args;
    let timed_call = |callee: &mut Callee| -> Result<Duration, String> {
        // Reused: a shallow clone (tensors shared with the ARGs, nothing copied).
        let a = if reuse {
            call_args.clone()
        } else {
            fresh(&call_args)?
        };
        let t = Instant::now();
        callee.call(a)?;
        Ok(t.elapsed())
    };
    let fail = |e: String| {
        eprint!("{e}");
        if !e.ends_with('\n') {
            eprintln!();
        }
        crate::run::EXIT_RUNTIME_ERROR
    };
    // The first call: scripted, it compiles for the signature first (timed apart).
    let mut first_compile = Duration::ZERO;
    if let Callee::Script { program, name } = &callee {
        let t = Instant::now();
        let a = match fresh(&call_args) {
            Ok(a) => a,
            Err(e) => return fail(e),
        };
        if let Err(e) = program.prepare(name, &a) {
            eprintln!("error: {name}(): {e}");
            return crate::EXIT_PROGRAM_ERROR;
        }
        first_compile = t.elapsed();
    }
    let first = match timed_call(&mut callee) {
        Ok(d) => d + first_compile,
        Err(e) => return fail(e),
    };
    report.compilations = match &callee {
        Callee::Script { program, .. } => program.compilations(),
        Callee::Trace(t, _) => t.compilations(),
        Callee::Eager { .. } => Vec::new(),
    };

    // A progress bar when the rest should take more than a second (estimated from a second
    // call, the first one having compiled).
    let estimate = match timed_call(&mut callee) {
        Ok(d) => d,
        Err(e) => return fail(e),
    };
    let total = args.warmup + args.repeat;
    let bar = (!args.json && estimate.as_secs_f64() * total as f64 > 1.0).then(|| {
        let pb = indicatif::ProgressBar::new(total as u64);
        if let Ok(style) = indicatif::ProgressStyle::with_template(
            "{msg} [{bar:40}] {pos}/{len} calls, {eta} left",
        ) {
            pb.set_style(style.progress_chars("=> "));
        }
        pb.set_message(format!("bench {name}"));
        pb
    });
    for _ in 0..args.warmup {
        if let Err(e) = timed_call(&mut callee) {
            return fail(e);
        }
        if let Some(b) = &bar {
            b.inc(1);
        }
    }
    let mut samples = Vec::with_capacity(args.repeat);
    for _ in 0..args.repeat {
        match timed_call(&mut callee) {
            Ok(d) => samples.push(d.as_secs_f64()),
            Err(e) => return fail(e),
        }
        if let Some(b) = &bar {
            b.inc(1);
        }
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    samples.sort_by(f64::total_cmp);
    let min = samples[0];
    let median = quantile(&samples, 0.5);
    let (q1, q3) = (quantile(&samples, 0.25), quantile(&samples, 0.75));

    let mode = match how.mode {
        ModeArg::Script => "script",
        ModeArg::Trace => "trace",
        ModeArg::Eager => "eager",
    };
    let level = opt.level.to_string();
    let mut stdout = std::io::stdout().lock();
    if args.json {
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        let compile: serde_json::Map<String, serde_json::Value> = phases(&report)
            .iter()
            .map(|(k, d)| (k.to_string(), serde_json::json!(ms(*d))))
            .collect();
        let line = serde_json::json!({
            "file": how.target.file.display().to_string(),
            "function": name,
            "mode": mode,
            "backend": backend.name(),
            "opt": level,
            "compile_ms": compile,
            "first_call_ms": ms(first),
            "warmup": args.warmup,
            "repeat": args.repeat,
            "min_ns": min * 1e9,
            "median_ns": median * 1e9,
            "q1_ns": q1 * 1e9,
            "q3_ns": q3 * 1e9,
            "iqr_ns": (q3 - q1) * 1e9,
        });
        let _ = writeln!(stdout, "{line}");
        return 0;
    }
    let _ = writeln!(
        stdout,
        "bench {name}() --mode {mode} --backend {} {level}",
        backend.name()
    );
    let compiled: Vec<String> = phases(&report)
        .iter()
        .filter(|(_, d)| !d.is_zero())
        .map(|(k, d)| format!("{k} {}", human(d.as_secs_f64())))
        .collect();
    let _ = writeln!(
        stdout,
        "compile:    {}",
        if compiled.is_empty() {
            "nothing (eager evaluation)".to_string()
        } else {
            compiled.join(", ")
        }
    );
    let what = match how.mode {
        ModeArg::Script => "specialization and code generation for the signature included",
        ModeArg::Trace => "tracing and compiling the trace included",
        ModeArg::Eager => "eager evaluation",
    };
    let _ = writeln!(
        stdout,
        "first call: {} ({what})",
        human(first.as_secs_f64())
    );
    let _ = writeln!(
        stdout,
        "steady:     min {}, median {}, IQR {} ({} .. {}) over {} calls after {} warm-up",
        human(min),
        human(median),
        human(q3 - q1),
        human(q1),
        human(q3),
        args.repeat,
        args.warmup + 1
    );
    0
}

#[cfg(test)]
mod tests {
    use super::quantile;

    #[test]
    fn quantiles_interpolate_like_numpy() {
        let xs = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(quantile(&xs, 0.5), 2.5);
        assert_eq!(quantile(&xs, 0.25), 1.75);
        assert_eq!(quantile(&xs, 0.75), 3.25);
        assert_eq!(quantile(&[7.0], 0.25), 7.0);
    }
}
