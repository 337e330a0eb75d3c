//! `pyjit compile --save F.pyjit` and `pyjit run F.pyjit`: saved programs from the command line.

mod common;

use std::path::PathBuf;
use std::process::Command;

fn pyjit() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pyjit"))
}

fn dir(tag: &str) -> PathBuf {
    common::scratch_dir("archive-cli", tag)
}

const SRC: &str = "EPS = 0.5\n\n\ndef helper(x: float) -> float:\n    return x + EPS\n\n\ndef f(x: float, n: int) -> float:\n    assert n >= 0, 'n must be non-negative'\n    return helper(x) * n\n";

#[test]
fn save_then_run_the_archive() {
    let d = dir("ok");
    std::fs::write(d.join("m.py"), SRC).unwrap();
    let out = pyjit()
        .current_dir(&d)
        .args([
            "compile", "m.py", "-f", "f", "--save", "f.pyjit", "1.5", "2",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("saved f() with 1 signature(s) to f.pyjit"),
        "{err}"
    );
    // The archive is run without the .py file, and its function is the default.
    std::fs::remove_file(d.join("m.py")).unwrap();
    let out = pyjit()
        .current_dir(&d)
        .args(["run", "f.pyjit", "1.5", "2"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "4.0");
    // Run-time errors still point into the saved source.
    let out = pyjit()
        .current_dir(&d)
        .args(["run", "f.pyjit", "1.5", "-1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("m.py:9:") && err.contains("n must be non-negative"),
        "{err}"
    );
}

#[test]
fn corrupt_or_foreign_archives_are_refused() {
    let d = dir("bad");
    std::fs::write(d.join("m.py"), SRC).unwrap();
    let out = pyjit()
        .current_dir(&d)
        .args(["compile", "m.py", "-f", "f", "--save", "f.pyjit"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let good = std::fs::read(d.join("f.pyjit")).unwrap();
    let other = String::from_utf8(good.clone())
        .unwrap()
        .replace("format 1", "format 2");
    for (name, bytes, expect) in [
        ("cut.pyjit", good[..good.len() - 9].to_vec(), "truncated"),
        (
            "v2.pyjit",
            other.into_bytes(),
            "format version 2 is not supported",
        ),
    ] {
        std::fs::write(d.join(name), &bytes).unwrap();
        let out = pyjit()
            .current_dir(&d)
            .args(["run", name, "1.0", "1"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{name}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(expect), "{name}: {err}");
    }
}
