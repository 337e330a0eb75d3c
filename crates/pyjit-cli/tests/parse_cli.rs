//! `pyjit parse`: the tree on stdout and exit 0, rendered diagnostics on stderr and exit 1, a
//! clear message and exit 64 for usage errors.

use std::path::PathBuf;
use std::process::{Command, Output};

fn pyjit(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pyjit"))
        .args(args)
        .output()
        .expect("the pyjit binary runs")
}

fn corpus(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/syntax/corpus")
        .join(name)
        .display()
        .to_string()
}

fn temp_file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pyjit-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn parse_prints_the_tree() {
    let out = pyjit(&["parse", &corpus("precedence.py")]);
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.starts_with("Module @0.."), "{stdout}");
    assert!(
        stdout.contains("UnaryOp - @5..12\n        BinOp ** @6..12"),
        "{stdout}"
    );
    assert!(out.stderr.is_empty());
}

#[test]
fn parse_unparse_prints_python() {
    let path = temp_file("u.py", "x = -a**2\nif not a == b: pass\n");
    let out = pyjit(&["parse", "--unparse", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "x = -a ** 2\nif not a == b:\n    pass\n"
    );
}

#[test]
fn parse_error_renders_diagnostics_and_exits_1() {
    let path = temp_file("bad.py", "def f(x):\n    return (x +\n\ny = 2\n");
    let out = pyjit(&["parse", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8(out.stderr).unwrap();
    let shown = stderr.replace(path.to_str().unwrap(), "bad.py");
    insta::assert_snapshot!(shown, @r"
    error: unclosed `(`
      ┌─ bad.py:4:3
      │
    2 │     return (x +
      │            - this `(` is never closed
    3 │ 
    4 │ y = 2
      │   ^ expected `)` before this point
    ");
}

#[test]
fn missing_file_is_a_usage_error() {
    let out = pyjit(&["parse", "/nonexistent/dir/missing.py"]);
    assert_eq!(out.status.code(), Some(64));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("cannot read /nonexistent/dir/missing.py"),
        "{stderr}"
    );
}

#[test]
fn bad_arguments_are_usage_errors() {
    assert_eq!(pyjit(&["parse"]).status.code(), Some(64));
    assert_eq!(pyjit(&["no-such-command"]).status.code(), Some(64));
    assert_eq!(pyjit(&[]).status.code(), Some(64));
    assert_eq!(pyjit(&["--help"]).status.code(), Some(0));
}
