//! `cargo xtask`: the project's chores, written in Rust so they run wherever cargo does.
//!
//! - `cargo xtask test`             README's test command, what `.ci/run` runs: `cargo test
//!   --workspace`, then the Python package's pytest suite (see [`python_tests`]), then the fuzz
//!   smoke (`cargo xtask fuzz --smoke`) when cargo-fuzz is installed (see [`fuzz::smoke_step`]).
//! - `cargo xtask pytest [ARGS...]` only the Python half (ARGS go to pytest).
//! - `cargo xtask bench [ARGS...]`  runs the criterion benches (`cargo bench -p pyjit-benches`).
//! - `cargo xtask bless [ARGS...]`  re-runs the tests with insta snapshots re-blessed
//!   (`INSTA_UPDATE=always`, `INSTA_FORCE_PASS=1`) and IR file-test expectations rewritten
//!   (`PYJIT_BLESS=1`). Review the diff before committing.
//! - `cargo xtask ci`               the same as `test`.
//! - `cargo xtask fuzz [--smoke] [--seconds N] [TARGET...]` builds and runs the fuzz targets of
//!   `fuzz/` (see `fuzz.rs`).
//! - `cargo xtask memcheck [--every N] [--all-cases] [NAME...]` runs the corpus under valgrind
//!   memcheck on a release build (see `memcheck.rs`).

mod fuzz;
mod memcheck;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

fn cargo() -> Command {
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string()))
}

/// Runs `cmd`; `Err(exit code)` unless it succeeds.
fn status(mut cmd: Command) -> Result<(), u8> {
    eprintln!("xtask: running {cmd:?}");
    match cmd.status() {
        Ok(s) if s.success() => Ok(()),
        Ok(s) => Err(s.code().unwrap_or(1).clamp(1, 255) as u8),
        Err(e) => {
            eprintln!("xtask: could not start {:?}: {e}", cmd.get_program());
            Err(1)
        }
    }
}

fn run(cmd: Command) -> ExitCode {
    match status(cmd) {
        Ok(()) => ExitCode::SUCCESS,
        Err(c) => ExitCode::from(c),
    }
}

/// The workspace root (xtask lives in `ROOT/xtask`). `cargo run` (the `cargo xtask` alias) sets
/// `CARGO_MANIFEST_DIR` for the process; the path compiled in is only the fallback, because a
/// binary reused from a target directory copied from another checkout still carries that
/// checkout's path.
fn root() -> PathBuf {
    let manifest = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    manifest.parent().map(Path::to_path_buf).unwrap_or(manifest)
}

/// The main workspace's target directory: `$CARGO_TARGET_DIR` (relative to the root when
/// relative), or `ROOT/target`. Built binaries are looked up there, not in a fixed `target/`.
pub fn target_dir(root: &Path) -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(d) if !d.is_empty() => root.join(d),
        _ => root.join("target"),
    }
}

/// The Python package's tests, in a virtual environment of their own:
///
/// 1. the venv is `$PYJIT_VENV`, or `target/pyjit-venv`; it is created (with `$PYJIT_PYTHON`,
///    default `python3`, `-m venv`) when absent, and `maturin`, `pytest` and `numpy` are
///    installed into it with its pip from the package index when any is missing;
/// 2. `maturin develop` builds `crates/pyjit-py` into it (the workspace's target directory, so
///    the compiler crates already built for `cargo test` are reused; a debug build, which also
///    replaces the module in `crates/pyjit-py/python/pyjit`: rebuild with `--release` before
///    timing anything through it);
/// 3. pytest runs `crates/pyjit-py/tests`. Its exit status 5 ("no tests collected") is a
///    failure like any other non-zero status. torch tests skip when torch is not importable.
fn python_tests(pytest_args: &[String]) -> Result<(), u8> {
    let root = root();
    let venv = std::env::var_os("PYJIT_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target").join("pyjit-venv"));
    let bin = venv.join(if cfg!(windows) { "Scripts" } else { "bin" });
    let python = bin.join(if cfg!(windows) {
        "python.exe"
    } else {
        "python"
    });
    if !python.exists() {
        let base = std::env::var("PYJIT_PYTHON").unwrap_or_else(|_| "python3".to_string());
        let mut c = Command::new(base);
        c.arg("-m").arg("venv").arg(&venv);
        status(c)?;
    }
    let mut probe = Command::new(&python);
    probe.args(["-c", "import maturin, pytest, numpy"]);
    let ready = probe.output().map(|o| o.status.success()).unwrap_or(false);
    if !ready {
        let mut c = Command::new(&python);
        c.args([
            "-m",
            "pip",
            "install",
            "--disable-pip-version-check",
            "maturin>=1.9,<2",
            "pytest",
            "numpy",
        ]);
        status(c)?;
    }
    let mut build = Command::new(bin.join("maturin"));
    build
        .arg("develop")
        .arg("--manifest-path")
        .arg(root.join("crates/pyjit-py/Cargo.toml"))
        .env("VIRTUAL_ENV", &venv)
        .env_remove("CONDA_PREFIX");
    status(build)?;
    let mut pytest = Command::new(&python);
    pytest
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .arg(root.join("crates/pyjit-py/tests"))
        .args(pytest_args)
        .current_dir(&root);
    match status(pytest) {
        Err(5) => {
            eprintln!("xtask: pytest collected no tests: that is a failure");
            Err(5)
        }
        r => r,
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (task, rest) = match args.split_first() {
        Some((t, r)) => (t.as_str(), r),
        None => ("help", &[][..]),
    };
    match task {
        "bench" => {
            let mut c = cargo();
            c.args(["bench", "-p", "pyjit-benches"]).args(rest);
            run(c)
        }
        "bless" => {
            let mut c = cargo();
            c.args(["test", "--workspace"])
                .args(rest)
                .env("INSTA_UPDATE", "always")
                .env("INSTA_FORCE_PASS", "1")
                .env("PYJIT_BLESS", "1");
            run(c)
        }
        "test" | "ci" => {
            let mut c = cargo();
            c.args(["test", "--workspace"]);
            match status(c)
                .and_then(|()| python_tests(&[]))
                .and_then(|()| fuzz::smoke_step(&root()))
            {
                Ok(()) => ExitCode::SUCCESS,
                Err(code) => ExitCode::from(code),
            }
        }
        "pytest" => match python_tests(rest) {
            Ok(()) => ExitCode::SUCCESS,
            Err(code) => ExitCode::from(code),
        },
        "fuzz" => fuzz::run(&root(), rest),
        "memcheck" => memcheck::run(&root(), rest),
        _ => {
            eprintln!("usage: cargo xtask <test|pytest|bench|bless|ci|fuzz|memcheck> [ARGS...]");
            if task == "help" {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(64)
            }
        }
    }
}
