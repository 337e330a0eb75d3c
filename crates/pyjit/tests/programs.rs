//! The end-to-end corpus: every case of every program under `tests/programs/` runs through the
//! code path of `pyjit run` ([`pyjit::run::run_program`]: ARG parsing, argument fitting, call,
//! writing the result with `-o X.npz` and reading the archive back), on the interpreter and on
//! native code, and is compared with what real PyTorch produced.
//!
//! Comparison (see `tests/programs/README.md`):
//! - results: the same keys, dtypes and shapes exactly; ints and bools exactly; floats within
//!   `|a - b| <= atol + rtol * |b|` with float32 `rtol = 1e-4, atol = 1e-5` and float64
//!   `rtol = 1e-9, atol = 1e-12` (reduction order and transcendental implementations differ
//!   between PyTorch's kernels and ours), NaN equal to NaN, infinities equal by sign; a case's
//!   `tol` in the manifest overrides both;
//! - errors: the run must end in a run-time error (exit status 2) of the same Python class; when
//!   the program raised it itself (`raise`/`assert`) the message must match exactly too (for
//!   runtime errors pyjit's wording may differ; mismatches are counted but not failures);
//! - stdout: exactly `stdout.txt` (empty when absent);
//! - the printed result (what `pyjit run` prints without `-o`): exactly `result.txt`, for results
//!   without floating-point values from torch programs.
//!
//! Every failure of every case is reported at once. Programs that cannot pass yet are listed in
//! `tests/programs_known_failures.txt` with the reason; a listed program that passes fails the
//! test, so the list stays honest. A program without cases fails the test too.

use pyjit::opt::OptLevel;
use pyjit::run::{RunOutcome, RunRequest, run_program};
use pyjit::{Backend, SourceFile, output};
use pyjit::{Options, Program};
use pyjit_runtime::Tensor;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

mod common;
use common::{
    Tol, case_dirs, compare_arrays, corpus_dir, known_failures, program_names, read_args,
    tolerances,
};

fn known_failures_file(backend: Backend) -> &'static str {
    match backend {
        Backend::Interp => "programs_known_failures.txt",
        Backend::Native => "programs_known_failures_native.txt",
    }
}

/// The results of one program's cases, by case number.
type CaseResults = Vec<(usize, CaseResult)>;

struct CaseResult {
    failure: Option<String>,
    /// A runtime error of the right class whose wording differs from PyTorch's.
    message_differs: bool,
}

fn run_case(program: &Result<Program, String>, case_dir: &Path, tol: Option<Tol>) -> CaseResult {
    let fail = |m: String| CaseResult {
        failure: Some(m),
        message_differs: false,
    };
    let (func, args) = match read_args(case_dir) {
        Ok(a) => a,
        Err(e) => return fail(e),
    };
    let program = match program {
        Ok(p) => p,
        Err(e) => return fail(e.clone()),
    };
    let req = RunRequest {
        function: Some(func),
        args,
        base_dir: case_dir.to_path_buf(),
        ..RunRequest::default()
    };
    let mut stdout = Vec::new();
    let outcome = run_program(program, &req, &mut stdout);
    let stdout = String::from_utf8_lossy(&stdout).into_owned();
    let want_stdout = std::fs::read_to_string(case_dir.join("stdout.txt")).unwrap_or_default();
    let mut problems = Vec::new();
    let mut message_differs = false;
    let expected_error = std::fs::read_to_string(case_dir.join("error.txt")).ok();
    match (&outcome, &expected_error) {
        (RunOutcome::CompileError(d), _) => {
            let first = d.first().map(|d| d.message.clone()).unwrap_or_default();
            problems.push(format!("compile error ({} diagnostics): {first}", d.len()));
        }
        (RunOutcome::Usage(m), _) => problems.push(format!("usage error: {m}")),
        (RunOutcome::RunError(e), None) => problems.push(format!("unexpected run-time error: {e}")),
        (RunOutcome::Ok { .. }, Some(want)) => {
            problems.push(format!("expected an error ({}), got a result", want.trim()))
        }
        (RunOutcome::RunError(e), Some(want)) => {
            let want = want.trim_end_matches('\n');
            let (kind, msg) = want.split_once(": ").unwrap_or((want, ""));
            if e.kind() != kind {
                problems.push(format!(
                    "error class {} != expected {kind} (got `{e}`, want `{want}`)",
                    e.kind()
                ));
            } else if e.message() != msg {
                if e.error.raised_by_program {
                    problems.push(format!(
                        "error message `{}` != expected `{msg}`",
                        e.message()
                    ));
                } else {
                    message_differs = true;
                }
            }
        }
        (RunOutcome::Ok { value, ty }, None) => {
            let want = match pyjit_runtime::npy::read_npz(case_dir.join("expected.npz")) {
                Ok(w) => w,
                Err(e) => return fail(format!("cannot read expected.npz: {e}")),
            };
            // What `pyjit run` prints without `-o`: str(result) as Python prints it. Compared
            // only for results without floats (whose last-bit noise changes PyTorch's choice of
            // format for the whole tensor) from torch programs (NumPy prints arrays its own way).
            let exact = want.iter().all(|(_, t)| !t.dtype().is_float());
            let numpy = case_dir.to_string_lossy().contains("/np_");
            if exact
                && !numpy
                && let Ok(want) = std::fs::read_to_string(case_dir.join("result.txt"))
            {
                let got = output::display(value);
                if got != want.trim_end_matches('\n') {
                    problems.push(format!(
                        "printed result differs:\n--- got\n{got}\n--- expected\n{want}---"
                    ));
                }
            }
            // Through the file, as `pyjit run -o out.npz` writes it.
            match write_and_read_back(value, ty) {
                Err(e) => problems.push(format!("cannot write the result as .npz: {e}")),
                Ok(got) => {
                    let got: BTreeMap<String, Tensor> = got.into_iter().collect();
                    let want: BTreeMap<String, Tensor> = want.into_iter().collect();
                    let gk: BTreeSet<&String> = got.keys().collect();
                    let wk: BTreeSet<&String> = want.keys().collect();
                    if gk != wk {
                        problems.push(format!(
                            "result keys {gk:?} != expected {wk:?} (result: {})",
                            output::display(value)
                        ));
                    } else {
                        for (k, w) in &want {
                            if let Err(e) = compare_arrays(k, &got[k], w, tol) {
                                problems.push(e);
                            }
                        }
                    }
                }
            }
        }
    }
    if stdout != want_stdout {
        problems.push(format!(
            "stdout differs:\n--- got\n{stdout}--- expected\n{want_stdout}---"
        ));
    }
    CaseResult {
        failure: (!problems.is_empty()).then(|| problems.join("; ")),
        message_differs,
    }
}

/// Compiles program `name` for `backend` at optimization level `level`; the error is the first
/// diagnostic, for the report.
/// `run` of every program, in order, computed by two workers (CI has two cores) that take the
/// programs one at a time.
fn on_two_workers(
    programs: &[String],
    run: impl Fn(&String) -> CaseResults + Sync,
) -> Vec<CaseResults> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let slots: Vec<std::sync::Mutex<CaseResults>> =
        programs.iter().map(|_| Default::default()).collect();
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(name) = programs.get(i) else { break };
                    *slots[i].lock().unwrap() = run(name);
                }
            });
        }
    });
    slots.into_iter().map(|m| m.into_inner().unwrap()).collect()
}

fn compile(
    dir: &Path,
    name: &str,
    backend: Backend,
    specialize: bool,
    level: OptLevel,
) -> Result<Program, String> {
    let text = std::fs::read_to_string(dir.join(format!("{name}.py")))
        .map_err(|e| format!("cannot read program: {e}"))?;
    // The name diagnostics show: the path from the repository root.
    let source = SourceFile::new(format!("tests/programs/{name}.py"), text);
    // The specialized run also specializes for exact shapes, so dims facts are checked too.
    let options = Options {
        backend,
        specialize,
        specialize_dims: specialize,
        ..Options::at_level(level)
    };
    Program::compile_with(source, options).map_err(|d| {
        let first = d.first().map(|d| d.message.clone()).unwrap_or_default();
        format!("compile error ({} diagnostics): {first}", d.len())
    })
}

/// Writes `value` with [`output::write`] to a temporary `.npz` and reads the archive back.
fn write_and_read_back(
    value: &pyjit::Value,
    ty: &pyjit::Type,
) -> Result<Vec<(String, Tensor)>, String> {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path = std::env::temp_dir().join(format!("pyjit-corpus-{}-{n}.npz", std::process::id()));
    output::write(&path, value, ty)?;
    let back = pyjit_runtime::npy::read_npz(&path).map_err(|e| e.to_string());
    let _ = std::fs::remove_file(&path);
    back
}

/// The reference: the interpreter on the generic IR as scripted (`-O0`).
#[test]
fn corpus_runs_on_the_interpreter() {
    run_corpus(Backend::Interp, false, OptLevel::O0);
}

/// Native code as `pyjit run` makes it by default: specialized, optimized at `-O2`.
#[test]
fn corpus_runs_natively() {
    run_corpus(Backend::Native, false, OptLevel::O2);
}

/// Native code without the optimization passes, so that a pass bug and a codegen bug are told
/// apart. A debug build runs every fourth program (by name), which spans every kind of program
/// within the crate's test budget (Cranelift unoptimized needs ~25 CPU seconds for the whole
/// corpus); release builds and `PYJIT_FULL_CORPUS=1` run all of them.
#[test]
fn corpus_runs_natively_at_o0() {
    let full =
        !cfg!(debug_assertions) || std::env::var_os("PYJIT_FULL_CORPUS").is_some_and(|v| v == "1");
    run_corpus_sample(
        Backend::Native,
        false,
        OptLevel::O0,
        if full { 1 } else { 4 },
    );
}

/// The interpreter on IR specialized for each call's argument types and shapes and optimized
/// at `-O2`, checking every value against its refined type: specialization only states facts
/// that hold (dtypes, ranks and dims), the passes keep them, and neither changes a result.
#[test]
fn corpus_runs_on_specialized_ir() {
    run_corpus(Backend::Interp, true, OptLevel::O2);
}

/// `pyjit compile --emit python` (TorchScript's `.code`): each case's IR, specialized for its
/// arguments and optimized at `-O2`, printed back as Python by `pyjit_graph::to_python`, then
/// scripted again from that text and run on the interpreter, gives the oracle's results. Cases
/// whose arguments do not fit the function (a usage error) run on the original program, so
/// their error is still checked. Programs that cannot round-trip yet are listed in
/// `programs_known_failures_python.txt`. With `PYJIT_EMIT_PYTHON_DIR=DIR` the printed texts are
/// also written to `DIR/<name>.<k>.py`, for `tests/oracle/programs/check.py --emitted DIR` to run
/// them with CPython + torch.
#[test]
fn corpus_round_trips_through_python() {
    let dir = corpus_dir();
    let programs = program_names();
    let list = "programs_known_failures_python.txt";
    let known = known_failures(list);
    let skip = known_failures(known_failures_file(Backend::Interp));
    let tols = tolerances();
    let run_program_cases = |name: &String| -> CaseResults {
        let original = compile(&dir, name, Backend::Interp, true, OptLevel::O2);
        case_dirs(name)
            .iter()
            .map(|(k, c)| {
                let tol = tols.get(&(name.clone(), *k)).copied();
                let emitted = original.as_ref().ok().and_then(|p| {
                    let (func, args) = read_args(c).ok()?;
                    let values = pyjit::run::fit_call(p, &func, &args, c).ok()?;
                    let (m, id, _) = p.specialize_optimized(&func, &values).ok()?;
                    let defaults = p.default_literals(&func).unwrap_or_default();
                    Some(pyjit_graph::to_python(&m, id, &defaults))
                });
                let Some(text) = emitted else {
                    return (*k, run_case(&original, c, tol));
                };
                if let Some(out) = std::env::var_os("PYJIT_EMIT_PYTHON_DIR") {
                    let _ = std::fs::write(Path::new(&out).join(format!("{name}.{k}.py")), &text);
                }
                let source = SourceFile::new(format!("{name}.emitted.py"), text.clone());
                let options = Options {
                    backend: Backend::Interp,
                    ..Options::at_level(OptLevel::O0)
                };
                let printed = Program::compile_with(source.clone(), options).map_err(|d| {
                    let first = d.first().map(|d| d.render(&source)).unwrap_or_default();
                    format!("the printed Python does not compile: {first}\n{text}")
                });
                let mut r = run_case(&printed, c, tol);
                if let Some(f) = &mut r.failure
                    && !f.contains("does not compile")
                {
                    f.push_str(&format!("\n--- printed Python\n{text}"));
                }
                (*k, r)
            })
            .collect()
    };
    let results = on_two_workers(&programs, |name| {
        if skip.contains_key(name) {
            CaseResults::default()
        } else {
            run_program_cases(name)
        }
    });
    let mut errors = Vec::new();
    let (mut pass, mut cases_total, mut cases_pass) = (0, 0, 0);
    for (name, cases) in programs.iter().zip(results) {
        if skip.contains_key(name) {
            continue;
        }
        let failed: Vec<&(usize, CaseResult)> =
            cases.iter().filter(|(_, r)| r.failure.is_some()).collect();
        cases_total += cases.len();
        cases_pass += cases.len() - failed.len();
        let passes = !cases.is_empty() && failed.is_empty();
        pass += passes as usize;
        match (passes, known.contains_key(name)) {
            (true, true) => errors.push(format!(
                "{name}: round-trips but is listed in {list}; remove it from the list"
            )),
            (false, false) => {
                let mut e = format!("{name}: {} of {} cases fail", failed.len(), cases.len());
                for (k, r) in failed.iter().take(1) {
                    let _ = write!(e, "\n    case {k}: {}", r.failure.as_deref().unwrap_or(""));
                }
                errors.push(e);
            }
            _ => {}
        }
    }
    let report = format!(
        "--emit python round trip: {pass} programs pass, {cases_pass}/{cases_total} cases \
         ({} listed in {list})",
        known.len()
    );
    eprintln!("{report}");
    assert!(errors.is_empty(), "{report}\n{}", errors.join("\n"));
}

fn run_corpus(backend: Backend, specialize: bool, level: OptLevel) {
    run_corpus_sample(backend, specialize, level, 1);
}

/// Runs every `every`-th program of the corpus (by name).
fn run_corpus_sample(backend: Backend, specialize: bool, level: OptLevel, every: usize) {
    let dir = corpus_dir();
    let programs = program_names();
    assert!(!programs.is_empty(), "no programs in {}", dir.display());
    let all_programs = programs.clone();
    let programs: Vec<String> = programs.into_iter().step_by(every.max(1)).collect();
    let list = known_failures_file(backend);
    let known = known_failures(list);
    let tols = tolerances();

    let results: Vec<(String, CaseResults)> = {
        let results = on_two_workers(&programs, |name| {
            let cases = case_dirs(name);
            // One compilation per program, as `pyjit run` would do per process;
            // the cases then share the native code cache.
            let program = compile(&dir, name, backend, specialize, level);
            cases
                .iter()
                .map(|(k, c)| {
                    let tol = tols.get(&(name.clone(), *k)).copied();
                    (*k, run_case(&program, c, tol))
                })
                .collect()
        });
        programs.iter().cloned().zip(results).collect()
    };

    let mut report = String::new();
    let (mut prog_pass, mut case_pass, mut case_total, mut msg_differs) = (0, 0, 0, 0);
    let mut errors = Vec::new();
    for (name, cases) in &results {
        case_total += cases.len();
        let failed: Vec<&(usize, CaseResult)> =
            cases.iter().filter(|(_, r)| r.failure.is_some()).collect();
        case_pass += cases.len() - failed.len();
        msg_differs += cases.iter().filter(|(_, r)| r.message_differs).count();
        let passes = !cases.is_empty() && failed.is_empty();
        if passes {
            prog_pass += 1;
        }
        match (cases.is_empty(), passes, known.contains_key(name)) {
            (true, _, _) => errors.push(format!(
                "{name}: has no cases (tests/programs/{name}.cases/)"
            )),
            (_, true, true) => errors.push(format!(
                "{name}: passes but is listed in {list}; remove it from the list"
            )),
            (_, false, false) => {
                let mut e = format!("{name}: {} of {} cases fail", failed.len(), cases.len());
                for (k, r) in failed {
                    let _ = write!(e, "\n    case {k}: {}", r.failure.as_deref().unwrap_or(""));
                }
                errors.push(e);
            }
            _ => {}
        }
    }
    for name in known.keys() {
        if !all_programs.contains(name) {
            errors.push(format!("{name}: listed in {list} but no such program"));
        }
    }
    let _ = writeln!(
        report,
        "corpus on --backend {} {level}{}{}: {prog_pass}/{} programs pass, {case_pass}/{case_total} cases pass \
         ({} programs listed as known failures; {msg_differs} error cases of the right class with different wording)",
        backend.name(),
        if specialize {
            " (specialized IR, types checked)"
        } else {
            ""
        },
        if every > 1 {
            format!(
                " (every {every}th program of {}; PYJIT_FULL_CORPUS=1 runs all)",
                all_programs.len()
            )
        } else {
            String::new()
        },
        programs.len(),
        known.len()
    );
    eprintln!("{report}");
    assert!(errors.is_empty(), "{report}\n{}", errors.join("\n"));
}
