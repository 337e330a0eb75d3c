//! `pyjit trace`: the traced IR and its guards on stdout, TracerWarnings on stderr, the compiled
//! trace's result; `--check-inputs` reports a divergence (exit 3) with the source line that made
//! it; `--no-guards` says what it does. Also `pyjit run --mode trace --backend native`.
//!
//! The inputs are the corpus's `conditional_op` cases (tests/programs/), whose expected results
//! PyTorch produced: case 0 takes the `x * 2` branch, case 4 (threshold 1000) the `x + 1` one.

use pyjit::runtime::Tensor;
use std::path::{Path, PathBuf};
mod common;

use common::{Scratch, pyjit, pyjit_ok, pyjit_words, scratch_dir};

fn corpus() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/programs")
}

/// A scratch folder holding `conditional_op.py` and the tensors of cases 0 and 4 as `x0.npy`
/// and `x4.npy` (so that rendered locations are relative: `conditional_op.py:6:8`).
fn workdir(tag: &str) -> Scratch {
    let dir = scratch_dir("trace-cli", tag);
    std::fs::copy(
        corpus().join("conditional_op.py"),
        dir.join("conditional_op.py"),
    )
    .unwrap();
    for k in [0, 4] {
        std::fs::copy(
            corpus().join(format!("conditional_op.cases/{k}/arg0.npy")),
            dir.join(format!("x{k}.npy")),
        )
        .unwrap();
    }
    dir
}

/// The expected result of corpus case `k` of conditional_op.
fn expected(k: usize) -> Tensor {
    let arrays = pyjit::runtime::npy::read_npz(
        corpus().join(format!("conditional_op.cases/{k}/expected.npz")),
    )
    .unwrap();
    arrays[0].1.clone()
}

fn read_npy(path: &Path) -> Tensor {
    pyjit::runtime::npy::read_npy(path).unwrap()
}

fn assert_close(got: &Tensor, want: &Tensor) {
    assert_eq!(got.shape(), want.shape());
    let (g, w) = (got.to_vec::<f64>(), want.to_vec::<f64>());
    for (a, b) in g.iter().zip(&w) {
        assert!((a - b).abs() <= 1e-5 + 1e-4 * b.abs(), "{a} vs {b}");
    }
}

/// Runs `pyjit trace conditional_op.py X THRESHOLD EXTRA...` in `dir`.
fn trace_conditional(
    dir: &Path,
    x: &str,
    threshold: &str,
    extra: &[&str],
) -> (Option<i32>, String, String) {
    let mut args = vec!["trace", "conditional_op.py", x, threshold];
    args.extend_from_slice(extra);
    pyjit(dir, &args)
}

/// The graph part of stdout (up to and including the guard lines).
fn graph(stdout: &str) -> String {
    stdout
        .lines()
        .take_while(|l| !l.starts_with("tensor("))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn trace_prints_graph_guards_and_warnings_and_runs_the_trace() {
    let dir = workdir("basic");
    let (code, out, err) = pyjit_words(
        &dir,
        "trace conditional_op.py -f conditional_op x0.npy 0.0 -o r.npy",
    );
    assert_eq!(code, Some(0), "{err}");
    insta::assert_snapshot!(graph(&out), @r#"
    func @conditional_op(%x: Tensor, %threshold: float) -> Tensor {  # conditional_op.py:5:5
      %0: None = const none                                 # conditional_op.py:6:8
      %1: Tensor = tensor.sum(%x, %0)                       # conditional_op.py:6:8
      %2: Tensor = tensor.gt.Scalar(%1, %threshold)         # conditional_op.py:6:8
      %3: bool = tensor.Bool.Tensor(%2)                     # conditional_op.py:6:8
      guard[true, "`x.sum() > threshold` was True when traced"](%3)  # conditional_op.py:6:8
      %4: int = const 2                                     # conditional_op.py:7:16
      %5: Tensor = tensor.mul.Scalar(%x, %4)                # conditional_op.py:7:16
      return %5                                             # conditional_op.py:5:5
    }
    # 1 guard; a call whose guarded values differ re-traces
    #   guard 0 at conditional_op.py:6:8: `x.sum() > threshold` was True when traced
    "#);
    insta::assert_snapshot!(err, @r"
    warning: TracerWarning: Converting a tensor to a Python boolean might cause the trace to be incorrect. We can't record the data flow of Python values, so this value will be treated as a constant in the future. This means that the trace might not generalize to other inputs!
    pyjit guards this value: a call where it differs re-traces instead of returning a wrong result.
      ┌─ conditional_op.py:6:8
      │
    6 │     if x.sum() > threshold:
      │        ^^^^^^^^^^^^^^^^^^^ `x.sum() > threshold` was True when traced
    ");
    // The compiled trace's result is PyTorch's.
    assert_close(&read_npy(&dir.join("r.npy")), &expected(0));
    // Printed instead of written: the same values, after the graph.
    let (code, out, _) = pyjit(&dir, &["trace", "conditional_op.py", "x0.npy", "0.0"]);
    assert_eq!(code, Some(0));
    assert!(out.contains("\ntensor(["), "{out}");
}

#[test]
fn check_inputs_reports_the_divergence_and_the_guard_line() {
    let dir = workdir("check");
    let (code, _, err) =
        trace_conditional(&dir, "x0.npy", "0.0", &["--check-inputs", "x4.npy 1000.0"]);
    assert_eq!(code, Some(3), "{err}");
    let report = &err[err.find("warning: check_trace").expect("a check report")..];
    insta::assert_snapshot!(report, @r#"
    warning: check_trace: input set 1 traces a different graph than input set 0
      ┌─ conditional_op.py:6:8
      │
    6 │     if x.sum() > threshold:
      │        ^^^^^^^^^^^^^^^^^^^ `x.sum() > threshold` was True when traced; with input set 1 it is False
      │
      = the guarded trace of input set 0 stops at conditional_op.py:6:8: `x.sum() > threshold` was True when traced; pyjit re-traces there
      = without guards (torch.jit.trace) the trace of input set 0 is wrong here: tensors differ (max abs difference 8.0)
      = graph difference:
        -   guard[true, "`x.sum() > threshold` was True when traced"](%3)
        -   %4: int = const 2
        -   %5: Tensor = tensor.mul.Scalar(%x, %4)
        -   return %5
        +   guard[false, "`x.sum() > threshold` was False when traced"](%3)
        +   %4: int = const 1
        +   %5: int = const 1
        +   %6: Tensor = tensor.add.Scalar(%x, %4, %5)
        +   return %6
    "#);
    // An input set that takes the same branch agrees: exit 0.
    let (code, _, err) =
        trace_conditional(&dir, "x0.npy", "0.0", &["--check-inputs", "x0.npy -1.5"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains("check_trace: 2 input sets trace the same graph and agree"),
        "{err}"
    );
    // A bad input set is a usage error.
    let (code, _, err) = trace_conditional(&dir, "x0.npy", "0.0", &["--check-inputs", "x0.npy [1"]);
    assert_eq!(code, Some(64), "{err}");
    assert!(err.contains("--check-inputs"), "{err}");
}

#[test]
fn emit_shows_the_native_code_of_the_trace_specialized_for_the_args() {
    let dir = workdir("emit");
    let (code, out, err) = trace_conditional(&dir, "x0.npy", "0.0", &["--emit", "clif"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.contains("; function conditional_op.specialized\n"),
        "{out}"
    );
    assert!(
        out.contains("#   guard 0 at conditional_op.py:6:8"),
        "{out}"
    );
    assert!(
        !out.contains("func @conditional_op"),
        "no IR listing with --emit clif"
    );
    let (code, out, _) = pyjit_words(&dir, "trace --emit=asm conditional_op.py x0.npy 0.0");
    assert_eq!(code, Some(0));
    assert!(
        out.contains("; function conditional_op.specialized"),
        "{out}"
    );
    let (code, _, err) = pyjit_words(&dir, "trace conditional_op.py x0.npy 0.0 --emit x");
    assert_eq!(code, Some(64), "{err}");
}

#[test]
fn no_guards_says_so_and_records_no_guard() {
    let dir = workdir("noguards");
    let (code, out, err) =
        trace_conditional(&dir, "x4.npy", "1000.0", &["--no-guards", "-o", "r.npy"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(!out.contains("guard["), "{out}");
    assert!(
        out.contains(
            "# 0 guards (--no-guards: every later call reuses this trace, as torch.jit.trace does)"
        ),
        "{out}"
    );
    assert!(
        err.contains("guards are disabled (--no-guards): this trace will answer every later call"),
        "{err}"
    );
    assert!(
        err.contains(
            "guards are disabled (--no-guards): a call where it differs silently reuses this trace"
        ),
        "{err}"
    );
    assert!(err.contains("conditional_op.py:6:8"), "{err}");
    // On its own input the trace is right.
    assert_close(&read_npy(&dir.join("r.npy")), &expected(4));
}

#[test]
fn run_mode_trace_on_native_code_takes_either_branch() {
    let dir = workdir("run");
    for (k, threshold) in [(0, "0.0"), (4, "1000.0")] {
        for backend in ["native", "interp"] {
            let x = format!("x{k}.npy");
            let (code, _, err) = pyjit(
                &dir,
                &[
                    "run",
                    "conditional_op.py",
                    "--mode",
                    "trace",
                    "--backend",
                    backend,
                    &x,
                    threshold,
                    "-o",
                    "r.npy",
                ],
            );
            assert_eq!(code, Some(0), "{err}");
            assert!(err.contains("TracerWarning"), "{err}");
            assert!(
                !err.contains("note:"),
                "no interpreter fallback expected: {err}"
            );
            assert_close(&read_npy(&dir.join("r.npy")), &expected(k));
        }
    }
}

#[test]
fn errors_and_programs_scripting_rejects() {
    let dir = workdir("errors");
    // A variable that changes type and a list comprehension: scripting rejects this file,
    // tracing runs it (the ARGs keep their spelling's type).
    std::fs::write(
        dir.join("dyn.py"),
        "import torch\n\ndef f(x, n):\n    y = n\n    y = [x * i for i in range(y)]\n    return torch.stack(y).sum(0)\n\ndef g(x, n):\n    if n > 2:\n        raise ValueError('n is too big')\n    return x\n",
    )
    .unwrap();
    let (out, err) = pyjit_ok(&dir, "trace dyn.py -f f x0.npy 3");
    assert!(out.contains("tensor.stack"), "{out}");
    assert!(err.contains("A non-tensor argument"), "{err}");
    // The program raises: exit 2 with the source location.
    let (code, _, err) = pyjit(&dir, &["trace", "dyn.py", "-f", "g", "x0.npy", "3"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("ValueError: n is too big") && err.contains("dyn.py:10:"),
        "{err}"
    );
    // Usage: no -f with two functions, an unknown function, a bad ARG, an unknown option.
    for args in [
        &["trace", "dyn.py", "x0.npy", "3"][..],
        &["trace", "dyn.py", "-f", "h", "x0.npy"],
        &["trace", "dyn.py", "-f", "f", "x0.npy", "[3"],
        &["trace", "dyn.py", "-f", "f", "x0.npy", "3", "--bogus"],
        &["trace", "missing.py", "1"],
    ] {
        let (code, _, err) = pyjit(&dir, args);
        assert_eq!(code, Some(64), "{args:?}: {err}");
    }
    // A file that does not parse: exit 1 with the diagnostic.
    std::fs::write(dir.join("bad.py"), "def f(x):\n    return (x +\n").unwrap();
    let (code, _, err) = pyjit(&dir, &["trace", "bad.py", "x0.npy"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("bad.py:"), "{err}");
}

/// The listings of docs/tracing.md are the real output of the commands they show, on the
/// Python blocks of the document (in order: simple_op.py, conditional_op.py, mixed.py).
#[test]
fn docs_tracing_listings_are_real_output() {
    let doc_path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/tracing.md");
    let doc = std::fs::read_to_string(doc_path).unwrap();
    let dir = scratch_dir("trace-cli", "docs");
    let blocks: Vec<&str> = doc
        .split("```python\n")
        .skip(1)
        .map(|b| b.split("```").next().unwrap())
        .collect();
    assert_eq!(blocks.len(), 3, "python blocks of docs/tracing.md");
    for (name, text) in ["simple_op.py", "conditional_op.py", "mixed.py"]
        .iter()
        .zip(&blocks)
    {
        std::fs::write(dir.join(name), text).unwrap();
    }
    let write = |name: &str, t: Tensor| pyjit::runtime::npy::write_npy(dir.join(name), &t).unwrap();
    write("a.npy", Tensor::from_slice(&[1i64]));
    write("b.npy", Tensor::from_slice(&[2i64]));
    write("x.npy", Tensor::from_slice(&[1.0f32, 2.0, 3.0]));
    write("y.npy", Tensor::from_slice(&[-1.0f32, -2.0, 0.5]));
    write("big.npy", Tensor::from_slice(&[4.0f32, -3.0]));
    let run = |cmd: &str| pyjit_words(&dir, cmd);
    let contains = |what: &str, text: &str| {
        assert!(
            doc.contains(text),
            "docs/tracing.md does not show the real output of {what}:\n{text}"
        );
    };
    // Whole stdout, nothing on stderr.
    for cmd in [
        "trace simple_op.py a.npy b.npy",
        "compile conditional_op.py",
    ] {
        let (code, out, err) = run(cmd);
        assert_eq!((code, err.as_str()), (Some(0), ""), "{cmd}");
        contains(cmd, &format!("$ pyjit {cmd}\n{out}```"));
    }
    // Graph and guards (stdout), warnings (stderr), result (stdout), in the order printed.
    for cmd in [
        "trace conditional_op.py x.npy 0.0",
        "trace conditional_op.py x.npy 0.0 --no-guards",
    ] {
        let (code, out, err) = run(cmd);
        assert_eq!(code, Some(0), "{cmd}: {err}");
        let (graph, result) = out.trim_end().rsplit_once('\n').unwrap();
        contains(cmd, &format!("$ pyjit {cmd}\n{graph}\n{err}{result}\n```"));
    }
    let (code, _, err) = trace_conditional(&dir, "x.npy", "0.0", &["--check-inputs", "y.npy 0.0"]);
    assert_eq!(code, Some(3));
    let report = &err[err.find("warning: check_trace").unwrap()..];
    contains(
        "--check-inputs",
        &format!("{}\n$ echo $?\n3\n", report.trim_end()),
    );
    let cmd = "run conditional_op.py --mode trace --backend native y.npy 0.0";
    let (code, out, _) = run(cmd);
    assert_eq!(code, Some(0));
    contains(cmd, &format!("$ pyjit {cmd}\n{out}```"));
    let (code, out, _) = run("trace mixed.py -f f big.npy");
    assert_eq!(code, Some(0));
    contains("mixed.py", &out[out.find("func @f(").unwrap()..]);
}
