//! `pyjit run FILE.py|FILE.pyjit [-f NAME] [--mode script|trace|eager] [--backend native|interp]
//! [-O0|-O1|-O2] [--passes a,b] [--print-after-all] [--print-after=PASS] [--time-passes]
//! [--opt-limit PASS=N] [--time] [ARG]... [-o OUT]`: compile a function, call it on the ARGs,
//! print or write the result.
//!
//! The work is [`pyjit::run::run_with_report`], shared with the corpus test harness; this module
//! only reads the file, prints, and maps the outcome to the exit status: 0 success, 1
//! compile-time error (diagnostics on stderr), 2 run-time error (message with the source
//! location), 64 bad usage. Pass reports and `--time` go to stderr after the run.

use crate::opt::OptArgs;
use clap::{Args, ValueEnum};
use pyjit::opt::manager::PipelineConfig;
use pyjit::run::{Mode, RunOutcome, RunRequest};
use pyjit::{Backend, Diagnostic, Options, Program, SourceFile, Type, Value, output};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Exit status for a run-time error of the program.
pub const EXIT_RUNTIME_ERROR: u8 = 2;

#[derive(Clone, Copy, ValueEnum)]
pub enum ModeArg {
    Script,
    Trace,
    Eager,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum BackendArg {
    Native,
    Interp,
}

impl BackendArg {
    /// The facade's backend the flag names.
    pub fn backend(self) -> Backend {
        match self {
            BackendArg::Native => Backend::Native,
            BackendArg::Interp => Backend::Interp,
        }
    }
}

/// What every command calls: the source file, `-f NAME` and the ARGs.
#[derive(Args, Clone)]
pub struct Target {
    /// The Python source file.
    pub file: PathBuf,
    /// The function (may be omitted when the file defines exactly one).
    #[arg(short = 'f', long = "function", value_name = "NAME")]
    pub function: Option<String>,
    /// Arguments: x.npy (tensor), 3 (int), 2.5 / 1e-3 / inf / nan (float), true/false, none,
    /// [a,b] (list), (a,b) (tuple).
    #[arg(allow_hyphen_values = true, value_name = "ARG")]
    pub args: Vec<String>,
}

/// How `pyjit run` and `pyjit bench` call the function: which one, captured and executed how,
/// optimized how.
#[derive(Args, Clone)]
pub struct CallArgs {
    #[command(flatten)]
    pub target: Target,
    /// How the function is captured.
    #[arg(long, value_enum, default_value = "script")]
    pub mode: ModeArg,
    /// What executes it: machine code compiled per signature, or the reference interpreter.
    #[arg(long, value_enum, default_value = "native")]
    pub backend: BackendArg,
    #[command(flatten)]
    pub opt: OptArgs,
}

#[derive(Args, Clone)]
pub struct RunArgs {
    #[command(flatten)]
    pub call: CallArgs,
    /// Print the compile phases' times (parse, frontend, specialize, passes, codegen,
    /// Cranelift) and the run time to stderr.
    #[arg(long)]
    pub time: bool,
    /// Write the result to OUT (.npy for one array, .npz for any result) instead of printing it.
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: Option<PathBuf>,
}

/// Reads a source file; `Err` is the exit status after reporting.
pub fn read_source(path: &std::path::Path) -> Result<SourceFile, u8> {
    read_input(path).map(|(file, _)| file)
}

/// Renders `diags` against `file` on stderr; the exit status for a program error.
pub fn report_diagnostics(diags: &[Diagnostic], file: &SourceFile) -> u8 {
    for d in diags {
        eprint!("{}", d.render(file));
    }
    crate::EXIT_PROGRAM_ERROR
}

/// The parsed `file`; its rendered diagnostics on stderr and the exit status for a program error
/// when it does not parse.
pub fn parse_source(file: &SourceFile) -> Result<pyjit_syntax::ast::Module, u8> {
    pyjit_syntax::parse_module(file).map_err(|diags| report_diagnostics(&diags, file))
}

/// [`pyjit::run::compile_for_args`] of `file`; its rendered diagnostics on stderr and the exit
/// status for a program error when it does not compile.
pub fn compile_source(
    file: &SourceFile,
    options: Options,
    function: Option<&str>,
    args: &[String],
) -> Result<Program, u8> {
    pyjit::run::compile_for_args(file.clone(), options, function, args)
        .map_err(|diags| report_diagnostics(&diags, file))
}

/// A command's arguments with the options written after the first ARG taken out (`take`), and
/// the pass-manager configuration of their optimization flags (`opt`); `Err` is the usage exit
/// status, after the message.
pub fn take_options<A: Clone>(
    args: &A,
    take: fn(&mut A) -> Result<(), String>,
    opt: fn(&A) -> &OptArgs,
) -> Result<(A, PipelineConfig), u8> {
    let mut args = args.clone();
    let config = crate::usage(take(&mut args).and_then(|()| opt(&args).config()))?;
    Ok((args, config))
}

/// A function saved in a `.pyjit` archive: its name, and whether it was compiled with fastmath.
pub struct Saved {
    pub function: String,
    pub fastmath: bool,
}

/// [`read_source`], for a `.pyjit` archive too (`pyjit compile --save`): then its source (once
/// [`pyjit::api::Function::load`] has checked the archive and compiled it) and what it holds.
pub fn read_input(path: &std::path::Path) -> Result<(SourceFile, Option<Saved>), u8> {
    match std::fs::read(path) {
        Ok(bytes) if pyjit::archive::is_archive(&bytes) => {
            match pyjit::api::Function::load(&bytes, &Default::default()) {
                Ok(f) => Ok((
                    f.source().clone(),
                    Some(Saved {
                        function: f.name().to_string(),
                        fastmath: f.fastmath(),
                    }),
                )),
                Err(e) => {
                    eprintln!("error: {}: {e}", path.display());
                    Err(crate::EXIT_PROGRAM_ERROR)
                }
            }
        }
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(t) => Ok((SourceFile::new(path.display().to_string(), t), None)),
            Err(e) => {
                eprintln!(
                    "error: {} is not valid UTF-8 (first bad byte at offset {})",
                    path.display(),
                    e.utf8_error().valid_up_to()
                );
                Err(crate::EXIT_PROGRAM_ERROR)
            }
        },
        Err(e) => {
            eprintln!("error: cannot read {}: {e}", path.display());
            Err(crate::EXIT_USAGE)
        }
    }
}

/// Options written after the first ARG. The ARGs accept values starting with `-` (`-3`,
/// `-inf`), so clap hands everything after the first ARG to us; no ARG spelling starts with `--`
/// or is `-f`/`-o`, so the options can be picked out unambiguously.
fn take_trailing_options(args: &mut RunArgs) -> Result<(), String> {
    Trailing::call(&mut args.call)
        .output(&mut args.output)
        .switch("--time", &mut args.time)
        .take(&[], |_, _| Ok(()))
}

/// Writes a call's result to `path` (`-o OUT`: .npy or .npz) or prints it to `stdout` (tensors
/// as PyTorch or, for a NumPy-style program, NumPy shows them: [`output::result_style`]); the
/// exit status (usage error when OUT cannot be written).
pub fn write_result(
    path: Option<&Path>,
    value: &Value,
    ty: &Type,
    style: output::TensorStyle,
    stdout: &mut dyn Write,
) -> u8 {
    match path {
        Some(path) => match crate::usage(output::write(path, value, ty)) {
            Ok(()) => 0,
            Err(code) => code,
        },
        None => {
            let _ = writeln!(stdout, "{}", output::display_styled(value, style));
            0
        }
    }
}

/// The options a command takes after its first ARG (see [`take_trailing_options`] for why clap
/// leaves them to us): every command's `-f`/`--function`, and what [`Self::output`],
/// [`Self::opt`], [`Self::backend`] and [`Self::switch`]es add; [`Self::take`] picks them out.
pub struct Trailing<'a> {
    target: &'a mut Target,
    output: Option<&'a mut Option<PathBuf>>,
    opt: Option<&'a mut OptArgs>,
    mode: Option<&'a mut ModeArg>,
    backend: Option<&'a mut BackendArg>,
    switches: Vec<(&'static str, &'a mut bool)>,
}

impl<'a> Trailing<'a> {
    /// The words after the first ARG (`target`'s ARGs), and where `-f NAME` /
    /// `--function NAME` goes.
    pub fn new(target: &'a mut Target) -> Self {
        Trailing {
            target,
            output: None,
            opt: None,
            mode: None,
            backend: None,
            switches: Vec::new(),
        }
    }

    /// The words after the first ARG of a command that calls the function: `-f`, `--mode`,
    /// `--backend` and the optimization flags go to `call`.
    pub fn call(call: &'a mut CallArgs) -> Self {
        let mut t = Trailing::new(&mut call.target)
            .opt(&mut call.opt)
            .backend(&mut call.backend);
        t.mode = Some(&mut call.mode);
        t
    }

    /// `-o OUT` / `--output OUT`, for a command that writes a result.
    pub fn output(mut self, output: &'a mut Option<PathBuf>) -> Self {
        self.output = Some(output);
        self
    }

    /// The optimization flags, for a command that compiles.
    pub fn opt(mut self, opt: &'a mut OptArgs) -> Self {
        self.opt = Some(opt);
        self
    }

    /// `--backend native|interp`, for a command that executes the function.
    pub fn backend(mut self, backend: &'a mut BackendArg) -> Self {
        self.backend = Some(backend);
        self
    }

    /// A flag of the command without a value, set when seen (one call per flag).
    pub fn switch(mut self, name: &'static str, on: &'a mut bool) -> Self {
        self.switches.push((name, on));
        self
    }

    /// Picks the options out of the words, leaving the ARGs: `set` is called with each flag in
    /// `valued` and its value (`--x=v` or the next word). Any other word starting with `--` is
    /// an unknown option.
    pub fn take(
        mut self,
        valued: &[&str],
        mut set: impl FnMut(&str, String) -> Result<(), String>,
    ) -> Result<(), String> {
        let mut it = std::mem::take(&mut self.target.args).into_iter();
        while let Some(w) = it.next() {
            let (flag, inline) = match w.split_once('=') {
                Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
                _ => (w.clone(), None),
            };
            if let Some((_, on)) = self.switches.iter_mut().find(|(name, _)| flag == *name) {
                **on = true;
                continue;
            }
            if let Some(opt) = self.opt.as_deref_mut()
                && let Some(r) = opt.take_trailing(&flag, inline.clone(), &mut it)
            {
                r?;
                continue;
            }
            let is_function = matches!(flag.as_str(), "-f" | "--function");
            let is_output = self.output.is_some() && matches!(flag.as_str(), "-o" | "--output");
            let is_mode = self.mode.is_some() && flag == "--mode";
            let is_backend = self.backend.is_some() && flag == "--backend";
            if !(is_function
                || is_output
                || is_mode
                || is_backend
                || valued.contains(&flag.as_str()))
            {
                if w.starts_with("--") {
                    return Err(format!("unknown option `{w}`"));
                }
                self.target.args.push(w);
                continue;
            }
            let value = inline
                .or_else(|| it.next())
                .ok_or_else(|| format!("option `{flag}` needs a value"))?;
            if is_function {
                self.target.function = Some(value);
            } else if let Some(out) = self.output.as_deref_mut().filter(|_| is_output) {
                *out = Some(PathBuf::from(value));
            } else if let Some(mode) = self.mode.as_deref_mut().filter(|_| is_mode) {
                *mode = parse_mode(&value)?;
            } else if let Some(backend) = self.backend.as_deref_mut().filter(|_| is_backend) {
                *backend = parse_backend(&value)?;
            } else {
                set(&flag, value)?;
            }
        }
        Ok(())
    }
}

/// The value of `flag`, one of `E`'s names; else the usage message that lists them
/// ("--mode must be script, trace or eager, not `x`").
pub fn parse_choice<E: ValueEnum>(flag: &str, value: &str) -> Result<E, String> {
    E::from_str(value, false).map_err(|_| {
        let names: Vec<String> = E::value_variants()
            .iter()
            .filter_map(|v| v.to_possible_value())
            .map(|p| p.get_name().to_string())
            .collect();
        let choices = match names.split_last() {
            Some((last, [])) => last.clone(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
            None => String::new(),
        };
        format!("{flag} must be {choices}, not `{value}`")
    })
}

/// The value of `--mode`.
pub fn parse_mode(value: &str) -> Result<ModeArg, String> {
    parse_choice("--mode", value)
}

/// The value of `--backend`.
pub fn parse_backend(value: &str) -> Result<BackendArg, String> {
    parse_choice("--backend", value)
}

pub fn run(args: &RunArgs) -> u8 {
    let (args, opt) = match take_options(args, take_trailing_options, |a| &a.call.opt) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let args = &args;
    let call = &args.call;
    let (file, saved) = match read_input(&call.target.file) {
        Ok(f) => f,
        Err(code) => return code,
    };
    let mut opt = opt;
    // An archive's math mode is what it was saved with, as `Function::load` makes it.
    if let Some(s) = &saved {
        opt.fastmath = s.fastmath;
    }
    let req = RunRequest {
        // An archive's function is the default.
        function: call.target.function.clone().or(saved.map(|s| s.function)),
        args: call.target.args.clone(),
        base_dir: PathBuf::from("."),
        mode: match call.mode {
            ModeArg::Script => Mode::Script,
            ModeArg::Trace => Mode::Trace,
            ModeArg::Eager => Mode::Eager,
        },
        backend: call.backend.backend(),
        opt,
    };
    let rendered_against = file.clone();
    let mut stdout = std::io::stdout().lock();
    let (outcome, report) = pyjit::run::run_with_report(file, &req, &mut stdout);
    let _ = stdout.flush();
    for c in &report.compilations {
        let sig: Vec<String> = c.signature.0.iter().map(|k| k.to_string()).collect();
        let title = format!("{}({})", c.function, sig.join(", "));
        crate::opt::print_report(&call.opt, &title, &c.passes);
    }
    if args.time {
        eprint!("{}", report.render_times(req.backend));
    }
    match outcome {
        RunOutcome::Ok { value, ty } => {
            let style = output::result_style(&rendered_against);
            write_result(args.output.as_deref(), &value, &ty, style, &mut stdout)
        }
        RunOutcome::CompileError(diags) => report_diagnostics(&diags, &rendered_against),
        RunOutcome::RunError(e) => {
            eprint!("{}", e.render());
            EXIT_RUNTIME_ERROR
        }
        RunOutcome::Usage(m) => {
            eprintln!("error: {m}");
            crate::EXIT_USAGE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scratch folder with `prog.py` holding `text`.
    fn program(tag: &str, text: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("pyjit-cli-run-{}-{tag}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("prog.py");
        std::fs::write(&path, text).unwrap();
        path
    }

    fn args(file: &std::path::Path, words: &[&str]) -> RunArgs {
        RunArgs {
            call: CallArgs {
                target: Target {
                    file: file.to_path_buf(),
                    function: None,
                    args: words.iter().map(|w| w.to_string()).collect(),
                },
                mode: ModeArg::Script,
                backend: BackendArg::Interp,
                opt: OptArgs::default(),
            },
            time: false,
            output: None,
        }
    }

    const SRC: &str = "def div(a: int, b: int) -> int:\n    return a // b\n\n\ndef neg(x: float) -> float:\n    return -x\n";

    #[test]
    fn exit_statuses() {
        let f = program("status", SRC);
        // 0: success (trailing options after the ARGs are still options).
        assert_eq!(run(&args(&f, &["7", "2", "-f", "div"])), 0);
        assert_eq!(
            run(&args(&f, &["-f", "neg", "-inf", "--backend", "native"])),
            0
        );
        // 2: a run-time error of the program, on either backend.
        assert_eq!(run(&args(&f, &["-f", "div", "1", "0"])), EXIT_RUNTIME_ERROR);
        assert_eq!(
            run(&args(&f, &["-f", "div", "1", "0", "--backend=native"])),
            EXIT_RUNTIME_ERROR
        );
        // 64: bad usage — no -f with two functions, a misfit ARG, a bad ARG, an unknown option,
        // a missing file.
        assert_eq!(run(&args(&f, &["1", "2"])), crate::EXIT_USAGE);
        assert_eq!(
            run(&args(&f, &["-f", "div", "1", "2.5"])),
            crate::EXIT_USAGE
        );
        assert_eq!(run(&args(&f, &["-f", "div", "1", "[2"])), crate::EXIT_USAGE);
        assert_eq!(
            run(&args(&f, &["-f", "div", "1", "2", "--bogus"])),
            crate::EXIT_USAGE
        );
        assert_eq!(
            run(&args(&f, &["-f", "div", "1", "2", "--mode", "sideways"])),
            crate::EXIT_USAGE
        );
        assert_eq!(
            run(&args(&f.with_file_name("missing.py"), &[])),
            crate::EXIT_USAGE
        );
        // 1: the file does not compile.
        let bad = program(
            "bad",
            "def f(x: int) -> int:\n    return [y for y in range(x)]\n",
        );
        assert_eq!(run(&args(&bad, &["3"])), crate::EXIT_PROGRAM_ERROR);
        let _ = std::fs::remove_dir_all(f.parent().unwrap());
        let _ = std::fs::remove_dir_all(bad.parent().unwrap());
    }

    #[test]
    fn output_files() {
        let f = program("out", SRC);
        let npz = f.with_file_name("r.npz");
        let mut a = args(&f, &["-f", "div", "7", "2", "-o"]);
        a.call.target.args.push(npz.display().to_string());
        assert_eq!(run(&a), 0);
        let back = pyjit::runtime::npy::read_npz(&npz).unwrap();
        assert_eq!(back.len(), 1);
        assert_eq!(back[0].0, "arr_0");
        assert_eq!(back[0].1.to_vec::<i64>(), vec![3]);
        // An output path that is neither .npy nor .npz is bad usage.
        let mut a = args(&f, &["-f", "div", "7", "2"]);
        a.output = Some(f.with_file_name("r.txt"));
        assert_eq!(run(&a), crate::EXIT_USAGE);
        let _ = std::fs::remove_dir_all(f.parent().unwrap());
    }
}
