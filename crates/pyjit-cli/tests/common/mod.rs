//! What the CLI tests share: running the binary and scratch folders.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A fresh scratch folder `pyjit-FILE-PID-TAG` in the temporary directory, for test `tag` of the
/// test file `file`.
pub fn scratch_dir(file: &str, tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pyjit-{file}-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
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
