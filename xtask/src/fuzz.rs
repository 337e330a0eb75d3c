//! `cargo xtask fuzz [--smoke] [--seconds N] [TARGET...]`: builds the cargo-fuzz targets of
//! `fuzz/` on stable (`cargo fuzz build -s none`, installing cargo-fuzz from crates.io when it is
//! missing) into `<target dir>/fuzz` (the main workspace's target directory, see
//! [`crate::target_dir`]), writes the generated seed corpora into `fuzz/corpus/<target>/` and
//! runs each target for a few seconds (`--smoke`: 10 s each, the CI step) or `--seconds N`. A
//! crash fails the task; libFuzzer leaves the input in `fuzz/artifacts/<target>/`.
//!
//! Stable is enough: without a sanitizer cargo-fuzz passes only stable `-C` flags (the sancov
//! module pass and its LLVM options) and `--cfg fuzzing`; libFuzzer itself is C++ built by
//! libfuzzer-sys's build script (a C++ compiler is needed).

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
    if cargo_fuzz_installed() {
        return Ok(());
    }
    let mut c = cargo();
    c.args(["install", "cargo-fuzz", "--locked"]);
    status(c)
}

fn cargo_fuzz_installed() -> bool {
    cargo()
        .args(["fuzz", "--version"])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The step of `cargo xtask test`: the smoke run when cargo-fuzz is installed (`.ci/run`
/// installs it), otherwise a note that the step was skipped and how to get it.
pub fn smoke_step(root: &Path) -> Result<(), u8> {
    if !cargo_fuzz_installed() {
        eprintln!(
            "xtask: fuzz smoke skipped: cargo-fuzz is not installed \
             (`cargo install cargo-fuzz --locked`, or run `cargo xtask fuzz --smoke`)"
        );
        return Ok(());
    }
    match fuzz(root, &["--smoke".to_string()]) {
        Ok(()) => Ok(()),
        Err(e) => {
            eprintln!("xtask fuzz: {e}");
            Err(1)
        }
    }
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
    let target_dir = crate::target_dir(root).join("fuzz");
    let mut build = cargo();
    // 16 codegen units (rustc's release default; cargo-fuzz would use 1): the build is most of
    // the smoke run's time on a small machine.
    build
        .current_dir(&fuzz_dir)
        .args(["fuzz", "build", "-s", "none", "--codegen-units", "16"])
        .arg("--target")
        .arg(&triple)
        .arg("--target-dir")
        .arg(&target_dir);
    status(build)?;
    let bin_dir: PathBuf = target_dir.join(&triple).join("release");
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
