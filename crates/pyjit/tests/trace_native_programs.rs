//! The program corpus (`tests/programs/`) in trace mode on the native backend, through the
//! facade: per program function one [`TracedProgram`] on `Backend::Native`, called on every case
//! in order — so later cases run compiled traces, fail their guards, re-trace — with the ARGs
//! of `args.txt` parsed and fitted by the facade ([`pyjit::traced::dynamic_call`]), compared with
//! what PyTorch produced (result arrays as `tests/common` compares them: within the corpus
//! tolerances or the case's `tol` in the manifest; error class; stdout).
//!
//! Programs that do not pass are listed in `trace_native_known_failures.txt` with the reason; a
//! listed program that passes fails the test. The programs named in issue 6 (`conditional_op`,
//! `converge`, `iterate`, where torch.jit.trace is silently wrong on a second input) must pass
//! with every trace on native code, and `conditional_op` must actually re-trace.

use pyjit::run::{Mode, RunOutcome, RunRequest};
use pyjit::traced::{TraceOptions, TracedProgram, dynamic_call};
use pyjit::{Backend, SourceFile, Type, Value, output};
use std::collections::BTreeMap;
use std::path::Path;

mod common;
use common::{
    Tol, Tolerances, case_dirs, compare_arrays, corpus_dir, known_failures, program_names,
    read_args, tolerances,
};

const KNOWN_FAILURES: &str = "trace_native_known_failures.txt";

struct Outcome {
    failure: Option<String>,
}

fn run_case(f: &mut TracedProgram, source: &SourceFile, case: &Path, tol: Option<Tol>) -> Outcome {
    let fail = |m: String| Outcome { failure: Some(m) };
    let (func, words) = match read_args(case) {
        Ok(a) => a,
        Err(e) => return fail(e),
    };
    let ast = match pyjit_syntax::parse_module(source) {
        Ok(a) => a,
        Err(_) => return fail("does not parse".into()),
    };
    let call = match dynamic_call(source, &ast, Some(&func), &words, case) {
        Ok(c) => c,
        Err(e) => return fail(format!("usage: {e}")),
    };
    let mut out = Vec::new();
    let got = f
        .call_to(call.args, &mut out)
        .map(|v| (v, call.ret.unwrap_or(Type::None)))
        .map_err(|e| (e.kind.to_string(), e.message));
    Outcome {
        failure: check(case, got, &String::from_utf8_lossy(&out), tol),
    }
}

/// Compares a call's outcome — the value and the type to write it with, or the error class and
/// message — and its output with the case's expected files, result arrays within `tol` (the
/// case's manifest override) or the default tolerances; `None` when they agree.
fn check(
    case: &Path,
    got: Result<(Value, Type), (String, String)>,
    stdout: &str,
    tol: Option<Tol>,
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
                        } else if let Err(e) = compare_arrays(gk, gt, wt, tol) {
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
fn run_case_like_the_cli(name: &str, case: &Path, tol: Option<Tol>) -> Option<String> {
    let text = match std::fs::read_to_string(corpus_dir().join(format!("{name}.py"))) {
        Ok(t) => t,
        Err(e) => return Some(format!("cannot read {name}.py: {e}")),
    };
    let (func, args) = match read_args(case) {
        Ok(a) => a,
        Err(e) => return Some(e),
    };
    let req = RunRequest {
        function: Some(func),
        args,
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
    check(case, got, &String::from_utf8_lossy(&out), tol)
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

fn run_program(name: &str, tols: &Tolerances) -> ProgramResult {
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
    let cases = case_dirs(name);
    // One traced function per program function, shared by its cases in order.
    let mut traced: BTreeMap<String, TracedProgram> = BTreeMap::new();
    for (k, case) in &cases {
        let func = read_args(case).map(|(f, _)| f).unwrap_or_default();
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
        let tol = tols.get(&(name.to_string(), *k)).copied();
        if let Some(why) = run_case(f, &source, case, tol).failure {
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

/// The programs of issue 6: right on every argument set, every trace on native code.
#[test]
fn issue_programs_trace_natively_on_every_argument_set() {
    let tols = tolerances();
    for name in ["conditional_op", "converge", "iterate"] {
        let r = run_program(name, &tols);
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
            let tol = tols.get(&(name.to_string(), k)).copied();
            if let Some(why) = run_case_like_the_cli(name, &case, tol) {
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
    let all = program_names();
    assert!(all.len() > 100, "corpus not found");
    let full = full_corpus();
    let names: Vec<String> = all
        .iter()
        .enumerate()
        .filter(|(i, _)| full || i % 4 == 0)
        .map(|(_, n)| n.clone())
        .collect();
    let known = known_failures(KNOWN_FAILURES);
    let tols = tolerances();
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
                    *results[i].lock().unwrap() = Some(run_program(name, &tols));
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
                "{name}: passes but is listed in {KNOWN_FAILURES}; remove it"
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
