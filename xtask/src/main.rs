//! `cargo xtask`: the project's chores, written in Rust so they run wherever cargo does.
//!
//! - `cargo xtask bench [ARGS...]`  runs the criterion benches (`cargo bench -p pyjit-benches`).
//! - `cargo xtask bless [ARGS...]`  re-runs the tests with insta snapshots re-blessed
//!   (`INSTA_UPDATE=always`, `INSTA_FORCE_PASS=1`) and IR file-test expectations rewritten
//!   (`PYJIT_BLESS=1`). Review the diff before committing.
//! - `cargo xtask ci`               runs what `.ci/run` runs.

use std::process::{Command, ExitCode};

fn cargo() -> Command {
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string()))
}

fn run(mut cmd: Command) -> ExitCode {
    eprintln!("xtask: running {cmd:?}");
    match cmd.status() {
        Ok(s) if s.success() => ExitCode::SUCCESS,
        Ok(s) => ExitCode::from(s.code().unwrap_or(1).clamp(1, 255) as u8),
        Err(e) => {
            eprintln!("xtask: could not start cargo: {e}");
            ExitCode::FAILURE
        }
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
        "ci" => {
            let mut c = cargo();
            c.args(["test", "--workspace"]);
            run(c)
        }
        _ => {
            eprintln!("usage: cargo xtask <bench|bless|ci> [ARGS...]");
            if task == "help" {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(64)
            }
        }
    }
}
