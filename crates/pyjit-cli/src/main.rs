//! The `pyjit` command-line tool. Each subcommand lives in its own module; `main` only parses
//! the command line and maps a subcommand's outcome to an exit code.
//!
//! Exit codes: 0 success, 1 the input has errors (diagnostics on stderr), 64 usage error
//! (bad arguments, unreadable file), as in BSD's sysexits.
//! Subcommands add their own: 2 the program raised (`run`, `trace`), 3 `trace --check-inputs`
//! found an input set that traces a different graph.

use clap::{Parser, Subcommand};
use std::process::ExitCode;

mod bench;
mod compile;
mod graph;
mod opt;
mod parse;
mod run;
mod save;
mod trace;

/// Exit code for errors in the user's program (diagnostics were printed).
pub const EXIT_PROGRAM_ERROR: u8 = 1;
/// Exit code for command-line misuse (sysexits' EX_USAGE).
pub const EXIT_USAGE: u8 = 64;

/// `r`'s value; its error is a usage error: printed (`error: ...`) to stderr, and the exit code
/// [`EXIT_USAGE`] in `Err`.
pub fn usage<T, E: std::fmt::Display>(r: Result<T, E>) -> Result<T, u8> {
    r.map_err(|e| {
        eprintln!("error: {e}");
        EXIT_USAGE
    })
}

#[derive(Parser)]
#[command(
    name = "pyjit",
    version,
    about = "JIT compiler for a statically typed Python subset (TorchScript dialect)"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Parse a Python file and print its syntax tree (or the syntax errors).
    Parse(parse::ParseArgs),
    /// Compile a function and run it on arguments (exit 2 on a run-time error).
    Run(run::RunArgs),
    /// Compile a function and print its IR (specialized when example arguments are given).
    Compile(compile::CompileArgs),
    /// Trace a function on example arguments: print the traced IR, its guards and the
    /// TracerWarnings, run the compiled trace (exit 3 when --check-inputs finds a divergence).
    Trace(trace::TraceArgs),
    /// Draw a function's graph (SVG drawn in-process, or DOT): scripted, traced, or both side by
    /// side (--compare).
    Graph(graph::GraphArgs),
    /// Time a function: compile phases, first call, then min/median/IQR of N calls (--json for
    /// scripts).
    Bench(bench::BenchArgs),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // --help and --version are not errors.
            let code = if e.use_stderr() { EXIT_USAGE } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    let code = match cli.command {
        Command::Parse(args) => parse::run(&args),
        Command::Run(args) => run::run(&args),
        Command::Compile(args) => compile::run(&args),
        Command::Trace(args) => trace::run(&args),
        Command::Graph(args) => graph::run(&args),
        Command::Bench(args) => bench::run(&args),
    };
    ExitCode::from(code)
}
