//! `cargo xtask fuzz [--smoke] [--seconds N] [TARGET...]`: builds the cargo-fuzz targets of
//! `fuzz/` on stable (`cargo fuzz build -s none`, installing cargo-fuzz from crates.io when it is
//! missing), writes the generated seed corpora into `fuzz/corpus/<target>/` and runs each target
//! for a few seconds (`--smoke`: 10 s each, the CI step) or `--seconds N`. A crash fails the task;
//! libFuzzer leaves the input in `fuzz/artifacts/<target>/`.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

/// Every target of fuzz/Cargo.toml (the `seeds` binary is not one).
pub const TARGETS: [&str; 6] = ["parse", "script", "ir", "npy", "args", "diff"];

fn cargo() -> Command {
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string()))
}

fn status(mut cmd: Command) -> Result<(), String> {
    eprintln!("xtask: running {cmd:?}");
    match cmd.status() {
        Ok(s) if s.success() => Ok(()),
        Ok(s) => Err(format!("{cmd:?} failed ({s})")),
        Err(e) => Err(format!("could not start {cmd:?}: {e}")),
    }
}

fn host_triple() -> Result<String, String> {
    let out = Command::new("rustc")
        .arg("-vV")
        .output()
        .map_err(|e| format!("rustc -vV: {e}"))?;
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: ").map(str::to_string))
        .ok_or_else(|| "rustc -vV printed no host triple".to_string())
}

/// cargo-fuzz, installed from crates.io (the only registry a fresh machine needs) if missing.
fn ensure_cargo_fuzz() -> Result<(), String> {
    let found = cargo()
        .args(["fuzz", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    if found {
        return Ok(());
    }
    let mut c = cargo();
    c.args(["install", "cargo-fuzz", "--locked"]);
    status(c)
}

pub fn run(root: &Path, args: &[String]) -> ExitCode {
    match fuzz(root, args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask fuzz: {e}");
            ExitCode::FAILURE
        }
    }
}

fn fuzz(root: &Path, args: &[String]) -> Result<(), String> {
    let mut seconds = 10u64;
    let mut targets: Vec<String> = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--smoke" => seconds = 10,
            "--seconds" => {
                seconds = it
                    .next()
                    .and_then(|s| s.parse().ok())
                    .ok_or("--seconds needs a number")?;
            }
            t if TARGETS.contains(&t) => targets.push(t.to_string()),
            other => {
                return Err(format!(
                    "unknown argument `{other}` (targets: {})",
                    TARGETS.join(", ")
                ));
            }
        }
    }
    if targets.is_empty() {
        targets = TARGETS.iter().map(|t| t.to_string()).collect();
    }
    ensure_cargo_fuzz()?;
    let fuzz_dir = root.join("fuzz");
    let triple = host_triple()?;
    let mut build = cargo();
    build
        .current_dir(&fuzz_dir)
        .args(["fuzz", "build", "-s", "none", "--target", &triple]);
    status(build)?;
    let bin_dir: PathBuf = fuzz_dir.join("target").join(&triple).join("release");
    let corpus = fuzz_dir.join("corpus");
    let mut seeds = Command::new(bin_dir.join("seeds"));
    seeds.env("PYJIT_FUZZ_SEEDS", &corpus);
    status(seeds)?;
    for t in &targets {
        let dir = corpus.join(t);
        let artifacts = fuzz_dir.join("artifacts").join(t);
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        std::fs::create_dir_all(&artifacts).map_err(|e| format!("{}: {e}", artifacts.display()))?;
        let mut c = Command::new(bin_dir.join(t));
        c.arg(&dir)
            .arg(format!("-artifact_prefix={}/", artifacts.display()))
            .arg(format!("-max_total_time={seconds}"))
            .args([
                "-timeout=20",
                "-rss_limit_mb=4096",
                "-max_len=8192",
                "-print_final_stats=1",
            ]);
        status(c)?;
    }
    Ok(())
}
