//! `pyjit compile FILE.py [-f NAME] --emit ir|clif|asm|dot|python [-O0|-O1|-O2] [--passes a,b]
//! [--print-after-all] [--print-after=PASS] [--time-passes] [--opt-limit PASS=N] [ARG]...`:
//! print a function's IR — the generic scripted IR, or, given example ARGs (same syntax as
//! `pyjit run`), the IR specialized for their signature (dtype and rank of each tensor, the kinds
//! of the other values; printed as the function `NAME.specialized`) and optimized by the pass
//! pipeline (`-O2` by default), exactly what the backends run — or the Cranelift IR / machine
//! code the native backend makes of that module. The passes run per signature, so without ARGs
//! the optimization flags have nothing to work on.
//!
//! Exit status: 0 success, 1 compile-time error (code generation included), 64 bad usage.

use crate::opt::OptArgs;
use crate::run::{Target, Trailing};
use clap::{Args, ValueEnum};
use pyjit::Options;
use pyjit::args::parse_arg;
use std::io::Write;
use std::path::{Path, PathBuf};

/// What `pyjit compile` and `pyjit trace` print (`--emit`).
#[derive(Clone, Copy, ValueEnum)]
pub enum Emit {
    /// The IR in its text format (docs/ir.md).
    Ir,
    /// The Cranelift IR of every function of the module (of a trace: specialized for the ARGs).
    Clif,
    /// The machine code of every function of the module (of a trace: specialized for the ARGs).
    Asm,
    /// The function's graph in Graphviz DOT (`dot -Tsvg`; `pyjit graph` draws SVG itself); a
    /// trace's guards highlighted.
    Dot,
    /// The IR printed back as Python (TorchScript's `.code`): the function and its callees as
    /// a module CPython + torch runs, and pyjit scripts again, with the same results; a trace's
    /// guards become `assert`s.
    Python,
}

/// Prints what `emit` asks for, for function `id` of `module` (`defaults`: the Python
/// expressions of its parameters' defaults, for `--emit python`).
fn emit(
    what: Emit,
    module: &pyjit::ir::Module,
    id: pyjit::ir::FuncId,
    defaults: &[Option<String>],
    out: &mut dyn Write,
) -> u8 {
    let text = match what {
        Emit::Python => Ok(pyjit_graph::to_python(module, id, defaults)),
        Emit::Ir => Ok(pyjit::ir::print_function(module, id)),
        Emit::Clif => pyjit::codegen::emit_listing_from(module, id, false),
        Emit::Asm => pyjit::codegen::emit_listing_from(module, id, true),
        Emit::Dot => {
            let name = crate::graph::user_name(&module.func(id).name);
            let g = pyjit_graph::Graph::of_function(module, id, name);
            Ok(pyjit_graph::to_dot(&[g]))
        }
    };
    match text {
        Ok(t) => {
            // A closed pipe (`pyjit compile f.py | head`) is not an error worth reporting.
            let _ = out.write_all(t.as_bytes());
            0
        }
        Err(e) => {
            eprintln!("error: native code generation failed: {e}");
            crate::EXIT_PROGRAM_ERROR
        }
    }
}

#[derive(Args, Clone)]
pub struct CompileArgs {
    #[command(flatten)]
    pub target: Target,
    /// What to print.
    #[arg(long, value_enum, default_value = "ir")]
    pub emit: Emit,
    #[command(flatten)]
    pub opt: OptArgs,
    /// Save the function as a `.pyjit` archive (its source, IR and the ARGs' signature)
    /// instead of printing; `pyjit run FILE.pyjit ARG...` runs it.
    #[arg(long, value_name = "FILE.pyjit")]
    pub save: Option<PathBuf>,
}

/// Options written after the first ARG (see `run::take_trailing_options` for why clap leaves
/// them to us).
fn take_trailing_options(args: &mut CompileArgs) -> Result<(), String> {
    Trailing::new(&mut args.target)
        .opt(&mut args.opt)
        .take(&["--emit", "--save"], |flag, value| {
            match flag {
                "--save" => args.save = Some(PathBuf::from(value)),
                _ => args.emit = parse_emit(&value)?,
            }
            Ok(())
        })
}

/// The value of `--emit`.
pub fn parse_emit(value: &str) -> Result<Emit, String> {
    crate::run::parse_choice("--emit", value)
}

pub fn run(args: &CompileArgs) -> u8 {
    render(args, &mut std::io::stdout().lock())
}

/// [`run`], writing the listing to `out` (diagnostics still go to stderr).
pub fn render(args: &CompileArgs, out: &mut dyn Write) -> u8 {
    let mut trailing = args.clone();
    if take_trailing_options(&mut trailing).is_ok()
        && let Some(path) = trailing.save.clone()
    {
        return crate::save::save(&trailing, &path);
    }
    match prepare(args) {
        Ok((args, module, id, defaults)) => emit(args.emit, &module, id, &defaults, out),
        Err(code) => code,
    }
}

/// The module and function `args` ask for: the generic scripted IR without ARGs, else the IR
/// specialized for the ARGs and optimized (pass reports printed to stderr). `Err` is the exit
/// status, after reporting. The arguments come back with the options written after the ARGs
/// taken out, and the function's parameter defaults as Python expressions.
#[allow(clippy::type_complexity)]
pub fn prepare(
    args: &CompileArgs,
) -> Result<
    (
        CompileArgs,
        pyjit::ir::Module,
        pyjit::ir::FuncId,
        Vec<Option<String>>,
    ),
    u8,
> {
    let (args, opt) = crate::run::take_options(args, take_trailing_options, |a| &a.opt)?;
    let args = &args;
    let file = crate::run::read_source(&args.target.file)?;
    let lits = crate::usage(
        args.target
            .args
            .iter()
            .map(|a| parse_arg(a))
            .collect::<Result<Vec<_>, _>>(),
    )?;
    let options = Options {
        opt,
        ..Options::default()
    };
    let program = crate::run::compile_source(
        &file,
        options,
        args.target.function.as_deref(),
        &args.target.args,
    )?;
    let name = crate::usage(pyjit::run::pick_function(
        &program,
        args.target.function.as_deref(),
    ))?;
    let defaults = program.default_literals(&name).unwrap_or_default();
    if lits.is_empty() {
        let Some(id) = program.module().function_by_name(&name) else {
            return Err(crate::EXIT_USAGE);
        };
        if args.opt.wants_report() {
            eprintln!(
                "note: the passes run on the IR specialized for example ARGs; give ARGs to see them"
            );
        }
        return Ok((args.clone(), program.module().clone(), id, defaults));
    }
    let values = crate::usage(pyjit::run::fit_call(
        &program,
        &name,
        &args.target.args,
        Path::new("."),
    ))?;
    let (module, id, report) = crate::usage(program.specialize_optimized(&name, &values))?;
    crate::opt::print_report(&args.opt, &format!("{name}.specialized"), &report);
    Ok((args.clone(), module, id, defaults))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compile(emit: Emit, words: &[&str]) -> (u8, String) {
        // One directory per call: tests run in parallel and must not rewrite each other's files.
        static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir =
            std::env::temp_dir().join(format!("pyjit-cli-compile-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("cond.py");
        std::fs::write(
            &path,
            "def f(x, t: float):\n    if x.sum() > t:\n        return x * 2\n    return x + 1\n",
        )
        .unwrap();
        let x = pyjit::runtime::Tensor::from_vec(vec![1.0f64, 2.0], &[2]).unwrap();
        pyjit::runtime::npy::write_npy(dir.join("x.npy"), &x).unwrap();
        let args = CompileArgs {
            target: Target {
                file: path,
                function: None,
                args: words
                    .iter()
                    .map(|w| w.replace("DIR", &dir.display().to_string()))
                    .collect(),
            },
            emit,
            opt: OptArgs::default(),
            save: None,
        };
        let mut out = Vec::new();
        let code = render(&args, &mut out);
        (code, String::from_utf8(out).unwrap())
    }

    /// [`compile`] of a listing that must succeed (exit 0).
    fn compile_ok(emit: Emit, words: &[&str]) -> String {
        let (code, out) = compile(emit, words);
        assert_eq!(code, 0, "{words:?}");
        out
    }

    #[test]
    fn generic_and_specialized_ir() {
        let generic = compile_ok(Emit::Ir, &[]);
        assert!(
            generic.starts_with("func @f(%x: Tensor, %t: float) -> Tensor {"),
            "{generic}"
        );
        assert!(
            generic.contains("if "),
            "both branches stay in one graph: {generic}"
        );
        let special = compile_ok(Emit::Ir, &["DIR/x.npy", "0.5"]);
        assert!(
            special
                .starts_with(r#"func @"f.specialized"(%x: Tensor[float64, 1], %t: float) -> Tensor[float64, 1] {"#),
            "{special}"
        );
        let clif = compile_ok(Emit::Ir, &["DIR/x.npy", "0.5", "--emit", "clif"]);
        assert!(clif.contains("function "), "{clif}");
        assert_eq!(
            compile(Emit::Ir, &["DIR/x.npy", "true"]).0,
            crate::EXIT_USAGE
        );
        assert_eq!(
            compile(Emit::Ir, &["DIR/x.npy", "0.5", "1"]).0,
            crate::EXIT_USAGE
        );
    }

    #[test]
    fn python_of_the_generic_and_the_specialized_ir() {
        let generic = compile_ok(Emit::Python, &[]);
        assert!(
            generic.starts_with("import math\nimport torch\n"),
            "{generic}"
        );
        assert!(
            generic.contains("def f(x: Tensor, t: float) -> Tensor:\n"),
            "{generic}"
        );
        let special = compile_ok(Emit::Ir, &["DIR/x.npy", "0.5", "--emit", "python"]);
        // Specialized and optimized: the user's name, one `if` with its result assigned in
        // both branches.
        assert!(
            special.contains("def f(x: Tensor, t: float) -> Tensor:\n"),
            "{special}"
        );
        assert!(
            special.contains("    if ") && special.contains("    else:\n"),
            "{special}"
        );
        assert!(!special.contains("specialized"), "{special}");
    }
}
