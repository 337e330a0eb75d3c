//! The program corpus (`tests/programs/`) in trace mode on the native backend, through the
//! facade: per program function one [`TracedProgram`] on `Backend::Native`, called on every case
//! in order — so later cases run compiled traces, fail their guards, re-trace — with the ARGs
//! of `args.txt` parsed and fitted by the facade ([`pyjit::traced::dynamic_call`]), compared with
//! what PyTorch produced (result arrays within the corpus tolerances, error class, stdout).
//!
//! Programs that do not pass are listed in `trace_native_known_failures.txt` with the reason; a
//! listed program that passes fails the test. The programs named in issue 6 (`conditional_op`,
//! `converge`, `iterate`, where torch.jit.trace is silently wrong on a second input) must pass
//! with every trace on native code, and `conditional_op` must actually re-trace.

use pyjit::run::{Mode, RunOutcome, RunRequest};
use pyjit::traced::{TraceOptions, TracedProgram, dynamic_call};
use pyjit::{Backend, SourceFile, Type, Value, output};
use pyjit_runtime::{DType, Tensor};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/programs")
}

fn known_failures() -> BTreeMap<String, String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/trace_native_known_failures.txt");
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter(|l| !l.is_empty())
        .map(|l| match l.split_once(':') {
            Some((n, r)) => (n.trim().to_string(), r.trim().to_string()),
            None => (l.to_string(), String::new()),
        })
        .collect()
}

/// The corpus comparison (tests/programs/README.md): dtypes and shapes exactly, integers
/// exactly, floats within rtol/atol (float32 1e-4/1e-5, else 1e-9/1e-12), NaN equal to NaN.
fn compare(key: &str, got: &Tensor, want: &Tensor) -> Result<(), String> {
    if got.dtype() != want.dtype() || got.shape() != want.shape() {
        return Err(format!(
            "{key}: {} {:?} != expected {} {:?}",
            got.dtype().name(),
            got.shape(),
            want.dtype().name(),
            want.shape()
        ));
    }
    let (rtol, atol) = match want.dtype() {
        DType::Float32 => (1e-4, 1e-5),
        _ => (1e-9, 1e-12),
    };
    let (g, w) = (got.to_vec::<f64>(), want.to_vec::<f64>());
    for (i, (a, b)) in g.iter().zip(&w).enumerate() {
        let ok = if a.is_nan() || b.is_nan() {
            a.is_nan() && b.is_nan()
        } else if a.is_infinite() || b.is_infinite() {
            a == b
        } else {
            (a - b).abs() <= atol + rtol * b.abs()
        };
        if !ok {
            return Err(format!("{key}: element {i} is {a}, expected {b}"));
        }
    }
    Ok(())
}

struct Outcome {
    failure: Option<String>,
}

fn run_case(f: &mut TracedProgram, source: &SourceFile, case: &Path) -> Outcome {
    let fail = |m: String| Outcome { failure: Some(m) };
    let line = match std::fs::read_to_string(case.join("args.txt")) {
        Ok(l) => l,
        Err(e) => return fail(format!("args.txt: {e}")),
    };
    let words = match pyjit::args::split_words(line.trim()) {
        Ok(w) => w,
        Err(e) => return fail(e),
    };
    let Some((func, words)) = words.split_first() else {
        return fail("empty args.txt".into());
    };
    let ast = match pyjit_syntax::parse_module(source) {
        Ok(a) => a,
        Err(_) => return fail("does not parse".into()),
    };
    let call = match dynamic_call(source, &ast, Some(func), words, case) {
        Ok(c) => c,
        Err(e) => return fail(format!("usage: {e}")),
    };
    let mut out = Vec::new();
    let got = f
        .call_to(call.args, &mut out)
        .map(|v| (v, call.ret.unwrap_or(Type::None)))
        .map_err(|e| (e.kind, e.message));
    Outcome {
        failure: check(case, got, &String::from_utf8_lossy(&out)),
    }
}

/// Compares a call's outcome — the value and the type to write it with, or the error class and
/// message — and its output with the case's expected files; `None` when they agree.
fn check(
    case: &Path,
    got: Result<(Value, Type), (String, String)>,
    stdout: &str,
) -> Option<String> {
    let mut problems = Vec::new();
    let want_stdout = std::fs::read_to_string(case.join("stdout.txt")).unwrap_or_default();
    if stdout != want_stdout {
        problems.push(format!("stdout {stdout:?} != expected {want_stdout:?}"));
    }
    let want_error = std::fs::read_to_string(case.join("error.txt")).ok();
    match (got, want_error) {
        (Err((kind, _)), Some(want)) => {
            let want_kind = want
                .trim_end()
                .split_once(": ")
                .map_or(want.trim_end(), |p| p.0);
            if kind != want_kind {
                problems.push(format!("error {kind} != expected {want_kind}"));
            }
        }
        (Err((kind, message)), None) => {
            problems.push(format!("unexpected error {kind}: {message}"))
        }
        (Ok((v, _)), Some(want)) => problems.push(format!(
            "expected {}, got {}",
            want.trim_end(),
            output::display(&v)
        )),
        (Ok((v, ret)), None) => {
            let want = pyjit_runtime::npy::read_npz(case.join("expected.npz"));
            match (output::to_arrays(&v, &ret), want) {
                (Ok(g), Ok(w)) => {
                    if g.len() != w.len() {
                        problems.push(format!("{} arrays, expected {}", g.len(), w.len()));
                    }
                    for ((gk, gt), (wk, wt)) in g.iter().zip(&w) {
                        if gk != wk {
                            problems.push(format!("key {gk} != {wk}"));
                        } else if let Err(e) = compare(gk, gt, wt) {
                            problems.push(e);
                        }
                    }
                }
                (Err(e), _) => problems.push(format!("result not writable: {e}")),
                (_, Err(e)) => problems.push(format!("expected.npz: {e}")),
            }
        }
    }
    (!problems.is_empty()).then(|| problems.join("; "))
}

/// Case `case` of program `name` as `pyjit run --mode trace --backend native` runs it (one
/// process per call: trace, compile, run).
fn run_case_like_the_cli(name: &str, case: &Path) -> Option<String> {
    let read =
        |p: PathBuf| std::fs::read_to_string(&p).map_err(|e| format!("{}: {e}", p.display()));
    let (text, line) = match (
        read(corpus_dir().join(format!("{name}.py"))),
        read(case.join("args.txt")),
    ) {
        (Ok(t), Ok(l)) => (t, l),
        (Err(e), _) | (_, Err(e)) => return Some(e),
    };
    let words = match pyjit::args::split_words(line.trim()) {
        Ok(w) => w,
        Err(e) => return Some(e),
    };
    let Some((func, args)) = words.split_first() else {
        return Some("empty args.txt".into());
    };
    let req = RunRequest {
        function: Some(func.clone()),
        args: args.to_vec(),
        base_dir: case.to_path_buf(),
        mode: Mode::Trace,
        backend: Backend::Native,
        ..RunRequest::default()
    };
    let mut out = Vec::new();
    let got = match pyjit::run::run(SourceFile::new(format!("{name}.py"), text), &req, &mut out) {
        RunOutcome::Ok { value, ty } => Ok((value, ty)),
        RunOutcome::RunError(e) => Err((e.kind().to_string(), e.message().to_string())),
        RunOutcome::CompileError(d) => Err(("CompileError".into(), format!("{d:?}"))),
        RunOutcome::Usage(m) => Err(("Usage".into(), m)),
    };
    check(case, got, &String::from_utf8_lossy(&out))
}

#[derive(Default)]
struct ProgramResult {
    cases: usize,
    failures: Vec<String>,
    native_runs: usize,
    interp_runs: usize,
    traces: usize,
    guard_failures: usize,
    eager_fallbacks: usize,
    notes: Vec<String>,
}

fn run_program(name: &str) -> ProgramResult {
    let dir = corpus_dir();
    let mut r = ProgramResult::default();
    let text = match std::fs::read_to_string(dir.join(format!("{name}.py"))) {
        Ok(t) => t,
        Err(e) => {
            r.failures.push(format!("cannot read: {e}"));
            return r;
        }
    };
    let source = SourceFile::new(format!("tests/programs/{name}.py"), text);
    let mut cases: Vec<(usize, PathBuf)> = std::fs::read_dir(dir.join(format!("{name}.cases")))
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .filter_map(|e| Some((e.file_name().to_str()?.parse().ok()?, e.path())))
                .collect()
        })
        .unwrap_or_default();
    cases.sort();
    // One traced function per program function, shared by its cases in order.
    let mut traced: BTreeMap<String, TracedProgram> = BTreeMap::new();
    for (k, case) in &cases {
        let func = std::fs::read_to_string(case.join("args.txt"))
            .ok()
            .and_then(|l| l.split_whitespace().next().map(String::from))
            .unwrap_or_default();
        let f = traced.entry(func.clone()).or_insert_with(|| {
            TracedProgram::from_source(
                source.clone(),
                func,
                TraceOptions::default(),
                Backend::Native,
            )
            .expect("corpus programs parse")
        });
        r.cases += 1;
        if let Some(why) = run_case(f, &source, case).failure {
            r.failures.push(format!("case {k}: {why}"));
        }
    }
    for f in traced.values() {
        r.native_runs += f.native_runs;
        r.interp_runs += f.interp_runs;
        r.traces += f.stats.traces;
        r.guard_failures += f.stats.guard_failures;
        r.eager_fallbacks += f.stats.eager_fallbacks;
        r.notes.extend(f.notes.iter().cloned());
    }
    r
}

fn programs() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(corpus_dir())
        .expect("tests/programs exists")
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            e.file_name()
                .to_str()?
                .strip_suffix(".py")
                .map(String::from)
        })
        .collect();
    names.sort();
    names
}

/// The programs of issue 6: right on every argument set, every trace on native code.
#[test]
fn issue_programs_trace_natively_on_every_argument_set() {
    for name in ["conditional_op", "converge", "iterate"] {
        let r = run_program(name);
        assert!(r.cases >= 3, "{name}: only {} cases", r.cases);
        assert!(r.failures.is_empty(), "{name}: {:#?}", r.failures);
        assert!(
            r.notes.is_empty(),
            "{name}: interpreter fallbacks: {:#?}",
            r.notes
        );
        assert_eq!(r.interp_runs, 0, "{name}");
        assert_eq!(
            r.native_runs + r.eager_fallbacks,
            r.cases,
            "{name}: every call answered by native code"
        );
        assert!(r.native_runs > 0, "{name}");
        // The same cases through `pyjit::run::run`, as the CLI runs them.
        for k in 0..r.cases {
            let case = corpus_dir().join(format!("{name}.cases/{k}"));
            if let Some(why) = run_case_like_the_cli(name, &case) {
                panic!("{name} case {k} through pyjit::run::run: {why}");
            }
        }
        if name == "conditional_op" {
            // Its cases take both branches: a compiled guard fails and it re-traces.
            assert!(r.guard_failures > 0 && r.traces >= 2, "{name}: no re-trace");
        }
    }
}

/// Whether to run every program: in release builds, or with `PYJIT_FULL_CORPUS=1`. A debug
/// build runs every fourth program (by name) — Cranelift, unoptimized, needs about two CPU
/// minutes for the corpus's unrolled traces, beyond the crate's test budget — so that the
/// sample still spans every kind of program.
fn full_corpus() -> bool {
    !cfg!(debug_assertions) || std::env::var_os("PYJIT_FULL_CORPUS").is_some_and(|v| v == "1")
}

#[test]
fn corpus_traces_natively() {
    let all = programs();
    assert!(all.len() > 100, "corpus not found");
    let full = full_corpus();
    let names: Vec<String> = all
        .iter()
        .enumerate()
        .filter(|(i, _)| full || i % 4 == 0)
        .map(|(_, n)| n.clone())
        .collect();
    let known = known_failures();
    // Two workers: CI has two cores.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: Vec<std::sync::Mutex<Option<ProgramResult>>> =
        names.iter().map(|_| std::sync::Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                while let Some(name) =
                    names.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
                {
                    let i = names.iter().position(|n| n == name).unwrap_or(0);
                    *results[i].lock().unwrap() = Some(run_program(name));
                }
            });
        }
    });
    let mut errors = Vec::new();
    let (mut pass, mut cases, mut case_pass) = (0, 0, 0);
    let (mut native, mut interp, mut eager, mut fallback_traces) = (0, 0, 0, 0);
    for (name, slot) in names.iter().zip(results) {
        let r = slot.into_inner().unwrap().unwrap_or_default();
        cases += r.cases;
        case_pass += r.cases - r.failures.len();
        native += r.native_runs;
        interp += r.interp_runs;
        eager += r.eager_fallbacks;
        fallback_traces += r.notes.len();
        let passes = r.cases > 0 && r.failures.is_empty();
        pass += passes as usize;
        match (passes, known.contains_key(name)) {
            (true, true) => errors.push(format!(
                "{name}: passes but is listed in trace_native_known_failures.txt; remove it"
            )),
            (false, false) => errors.push(format!(
                "{name}: {} of {} cases fail:\n    {}",
                r.failures.len(),
                r.cases,
                r.failures.join("\n    ")
            )),
            _ => {}
        }
    }
    for name in known.keys() {
        if !all.contains(name) {
            errors.push(format!(
                "{name}: listed as a known failure but no such program"
            ));
        }
    }
    let report = format!(
        "corpus in trace mode on --backend native ({}): {pass}/{} programs pass, {case_pass}/{cases} \
         cases; calls answered by native code {native}, by a trace on the interpreter {interp} \
         (traces native code generation could not compile: {fallback_traces}), eagerly {eager}",
        if full {
            "every program".to_string()
        } else {
            format!(
                "every fourth program of {}; PYJIT_FULL_CORPUS=1 runs all",
                all.len()
            )
        },
        names.len()
    );
    eprintln!("{report}");
    assert!(errors.is_empty(), "{report}\n{}", errors.join("\n"));
}
