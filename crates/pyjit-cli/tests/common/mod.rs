//! What the CLI tests share: running the binary and scratch folders.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A scratch folder, removed when the test that made it passes (kept for a look when it fails).
pub struct Scratch(PathBuf);

impl std::ops::Deref for Scratch {
    type Target = Path;

    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// A fresh scratch folder `pyjit-FILE-PID-TAG` in the temporary directory, for test `tag` of the
/// test file `file`.
pub fn scratch_dir(file: &str, tag: &str) -> Scratch {
    let dir = std::env::temp_dir().join(format!("pyjit-{file}-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    Scratch(dir)
}

/// Runs the `pyjit` binary with `args` in `dir`: its exit code, stdout and stderr.
pub fn pyjit(dir: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let Output {
        status,
        stdout,
        stderr,
    } = Command::new(env!("CARGO_BIN_EXE_pyjit"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the pyjit binary runs");
    (
        status.code(),
        String::from_utf8(stdout).unwrap(),
        String::from_utf8(stderr).unwrap(),
    )
}

/// [`pyjit`] with the arguments of `cmd`, a command line whose words are separated by single
/// spaces (no word holds a space).
pub fn pyjit_words(dir: &Path, cmd: &str) -> (Option<i32>, String, String) {
    let words: Vec<&str> = cmd.split(' ').collect();
    pyjit(dir, &words)
}

/// [`pyjit_words`] for a command that must succeed (exit 0): its stdout and stderr.
pub fn pyjit_ok(dir: &Path, cmd: &str) -> (String, String) {
    let (code, out, err) = pyjit_words(dir, cmd);
    assert_eq!(code, Some(0), "{cmd}: {err}");
    (out, err)
}

/// The `time:` phases of a scripted call compiled for the native backend, in the order printed:
/// the compilation's phases, then `run`.
pub const NATIVE_SCRIPT_PHASES: [&str; 7] = [
    "parse",
    "frontend",
    "specialize",
    "passes",
    "codegen",
    "cranelift",
    "run",
];
