//! `cargo xtask memcheck [--every N] [--all-cases] [NAME...]`: the corpus (`tests/programs`)
//! under valgrind memcheck, on a release build of native code (`pyjit run`, `-O2`, the default
//! backend). Each case runs from its folder as `tests/programs/README.md` describes; a case fails
//! when memcheck reports an invalid access, a use of uninitialised memory, or a leak that is
//! definite or indirect (`--error-exitcode`). "Possibly lost" and "still reachable" blocks are the
//! process-lifetime statics (the rayon pool, the op-schema table, the buffer pool) and are not
//! errors. `--every N` runs every N-th program (by name), the first case of each unless
//! `--all-cases`; names run just those programs.

use std::path::Path;
use std::process::{Command, ExitCode};

/// The exit status memcheck is told to use when it found an error.
const VALGRIND_ERROR: i32 = 99;

pub fn run(root: &Path, args: &[String]) -> ExitCode {
    match memcheck(root, args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask memcheck: {e}");
            ExitCode::FAILURE
        }
    }
}

fn memcheck(root: &Path, args: &[String]) -> Result<(), String> {
    let mut every = 1usize;
    let mut all_cases = false;
    let mut names: Vec<String> = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--every" => {
                every = it
                    .next()
                    .and_then(|s| s.parse().ok())
                    .filter(|&n| n > 0)
                    .ok_or("--every needs a positive number")?;
            }
            "--all-cases" => all_cases = true,
            n if !n.starts_with('-') => names.push(n.to_string()),
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    let found = Command::new("valgrind").arg("--version").output();
    if !found.is_ok_and(|o| o.status.success()) {
        return Err("valgrind is not installed (apt-get install valgrind)".into());
    }
    let mut build = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    build
        .current_dir(root)
        .args(["build", "--release", "-p", "pyjit-cli"]);
    eprintln!("xtask: running {build:?}");
    if !build.status().is_ok_and(|s| s.success()) {
        return Err("the release build failed".into());
    }
    let pyjit = crate::target_dir(root).join("release").join("pyjit");
    let programs_dir = root.join("tests/programs");
    let mut programs: Vec<String> = std::fs::read_dir(&programs_dir)
        .map_err(|e| format!("{}: {e}", programs_dir.display()))?
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let n = e.file_name().to_string_lossy().into_owned();
            n.strip_suffix(".py").map(str::to_string)
        })
        .collect();
    programs.sort();
    if !names.is_empty() {
        programs.retain(|p| names.contains(p));
    }
    let programs: Vec<String> = programs.into_iter().step_by(every).collect();
    let (mut ran, mut failed) = (0usize, Vec::new());
    for name in &programs {
        let cases = programs_dir.join(format!("{name}.cases"));
        let mut ks: Vec<usize> = std::fs::read_dir(&cases)
            .map(|d| {
                d.filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
                    .collect()
            })
            .unwrap_or_default();
        ks.sort();
        if !all_cases {
            ks.truncate(1);
        }
        for k in ks {
            let dir = cases.join(k.to_string());
            let Ok(line) = std::fs::read_to_string(dir.join("args.txt")) else {
                continue;
            };
            let mut words = line.split_whitespace();
            let Some(func) = words.next() else { continue };
            let mut c = Command::new("valgrind");
            c.current_dir(&dir)
                .args([
                    "-q",
                    "--tool=memcheck",
                    "--leak-check=full",
                    "--show-leak-kinds=definite,indirect",
                    "--errors-for-leak-kinds=definite,indirect",
                    &format!("--error-exitcode={VALGRIND_ERROR}"),
                ])
                .arg(&pyjit)
                .arg("run")
                .arg(format!("../../{name}.py"))
                .args(["-f", func])
                .args(words)
                .stdout(std::process::Stdio::null());
            let out = c.output().map_err(|e| format!("valgrind: {e}"))?;
            ran += 1;
            let code = out.status.code().unwrap_or(-1);
            let report = String::from_utf8_lossy(&out.stderr);
            // Exit 0 or a run-time error (2) of an error case are fine; memcheck's own status
            // (or a crash) is not.
            if code == VALGRIND_ERROR || !(code == 0 || code == 2) {
                eprintln!("FAIL {name}/{k} (exit {code}):\n{report}");
                failed.push(format!("{name}/{k}"));
            } else {
                eprintln!("ok   {name}/{k}");
            }
        }
    }
    eprintln!(
        "memcheck: {ran} cases of {} programs, {} with errors",
        programs.len(),
        failed.len()
    );
    if failed.is_empty() {
        Ok(())
    } else {
        Err(format!("memcheck errors in: {}", failed.join(", ")))
    }
}
