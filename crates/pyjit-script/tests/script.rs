//! Data-driven tests of the script frontend. The data lives in `tests/script/` at the workspace
//! root:
//! - `ir/*.py`: programs that must script; the printed IR of the whole module is snapshotted
//!   (`tests/script/snapshots/ir__NAME.snap`) and must pass the verifier.
//! - `errors/*.py`: programs that must be rejected; the rendered diagnostics are snapshotted
//!   (`errors__NAME.snap`), and each must name a `file:line:col` with a caret.
//! - the end-to-end corpus `tests/programs/*.py` must all script and verify.
//!
//! Re-bless with `INSTA_UPDATE=always cargo test -p pyjit-script` (or `cargo xtask bless`).

use pyjit_syntax::SourceFile;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn py_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "py"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

fn load(path: &Path, shown_dir: &str) -> SourceFile {
    let text = std::fs::read_to_string(path).expect("readable test file");
    let name = format!(
        "{shown_dir}/{}",
        path.file_name().unwrap_or_default().to_string_lossy()
    );
    SourceFile::new(name, text)
}

/// The `.py` files of `dir` (below the workspace root), sorted, each with its stem, loaded
/// under the name `SHOWN/FILE.py` (`SHOWN`: `dir` without its `tests/script/`).
fn programs(dir: &str) -> Vec<(String, SourceFile)> {
    py_files(&root().join(dir))
        .into_iter()
        .map(|path| {
            let stem = path
                .file_stem()
                .unwrap_or_default()
                .to_string_lossy()
                .to_string();
            (stem, load(&path, dir.trim_start_matches("tests/script/")))
        })
        .collect()
}

/// [`programs`], which must be at least `min` (`what` names them in the failure).
fn programs_at_least(dir: &str, min: usize, what: &str) -> Vec<(String, SourceFile)> {
    let files = programs(dir);
    assert!(files.len() >= min, "expected {what}, found {}", files.len());
    files
}

/// The valid programs the mutation tests start from: the IR snapshot programs, then the corpus.
fn mutation_bases() -> Vec<PathBuf> {
    let mut files = py_files(&root().join("tests/script/ir"));
    files.extend(py_files(&root().join("tests/programs")));
    files
}

/// Scripts `file` if it parses (`false` when it does not); no diagnostic may be an internal
/// compiler error (`what` names the mutation in the failure).
fn scripts_without_internal_error(file: &SourceFile, what: &str) -> bool {
    let Ok(module) = pyjit_syntax::parse_module(file) else {
        return false;
    };
    if let Err(diags) = pyjit_script::script_module(file, &module) {
        for d in diags {
            assert!(
                !d.message.contains("internal compiler error"),
                "{what}: {}\n{}",
                d.message,
                file.text
            );
        }
    }
    true
}

fn settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path(root().join("tests/script/snapshots"));
    s.set_prepend_module_to_snapshot(false);
    s.set_omit_expression(true);
    s
}

fn render_all(file: &SourceFile, diags: &[pyjit_syntax::Diagnostic]) -> String {
    diags
        .iter()
        .map(|d| d.render(file))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn ir_snapshots() {
    let files = programs_at_least("tests/script/ir", 20, "the IR snapshot programs");
    let mut failures = Vec::new();
    for (stem, file) in files {
        match pyjit_script::script_source(&file) {
            Ok(m) => {
                let printed = pyjit_ir::print_module(&m);
                settings().bind(|| insta::assert_snapshot!(format!("ir__{stem}"), printed));
            }
            Err(diags) => failures.push(format!("{stem}:\n{}", render_all(&file, &diags))),
        }
    }
    assert!(
        failures.is_empty(),
        "programs failed to script:\n{}",
        failures.join("\n")
    );
}

#[test]
fn error_snapshots() {
    let files = programs_at_least("tests/script/errors", 60, "at least 60 rejected programs");
    let mut accepted = Vec::new();
    for (stem, file) in files {
        match pyjit_script::script_source(&file) {
            Ok(_) => accepted.push(stem),
            Err(diags) => {
                for d in &diags {
                    assert!(
                        d.primary_span().is_some(),
                        "{stem}: diagnostic without a primary label: {}",
                        d.message
                    );
                    assert!(
                        !d.message.contains("internal compiler error"),
                        "{stem}: {}",
                        d.message
                    );
                }
                let rendered = render_all(&file, &diags);
                assert!(
                    rendered.contains(&format!("errors/{stem}.py:")),
                    "{stem}: no location:\n{rendered}"
                );
                assert!(rendered.contains('^'), "{stem}: no caret:\n{rendered}");
                settings().bind(|| insta::assert_snapshot!(format!("errors__{stem}"), rendered));
            }
        }
    }
    assert!(
        accepted.is_empty(),
        "programs that should have been rejected: {accepted:?}"
    );
}

/// Programs of the end-to-end corpus that are meant to fail at compile time (none so far: the
/// corpus' error cases fail at run time).
const CORPUS_COMPILE_ERRORS: &[&str] = &[];

/// Programs of the real-TorchScript corpus (`ts_*`, issue 14) that use a construct the frontend
/// does not accept yet; the test fails when one of them compiles (remove it then).
const NOT_YET_SCRIPTABLE: &[(&str, &str)] = &[];

#[test]
fn corpus_scripts_and_verifies() {
    let files = programs("tests/programs");
    let mut failures = Vec::new();
    for (stem, file) in &files {
        let r = pyjit_script::script_source(file);
        let not_yet = NOT_YET_SCRIPTABLE.iter().any(|(n, _)| *n == stem);
        match (r, CORPUS_COMPILE_ERRORS.contains(&stem.as_str()) || not_yet) {
            (Ok(m), false) => {
                if let Err(e) = pyjit_ir::verify_module(&m) {
                    failures.push(format!("{stem}: IR does not verify: {e:?}"));
                }
            }
            (Err(d), false) => failures.push(format!("{stem}:\n{}", render_all(file, &d))),
            (Ok(_), true) if not_yet => failures.push(format!(
                "{stem}: compiles now; remove it from NOT_YET_SCRIPTABLE"
            )),
            (Ok(_), true) => failures.push(format!("{stem}: expected a compile error")),
            (Err(_), true) => {}
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} corpus programs failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}

/// Deleting any one line of a valid program must give IR or diagnostics, never a panic.
#[test]
fn no_panic_on_programs_with_a_line_deleted() {
    let files = mutation_bases();
    let mut runs = 0;
    for (k, path) in files.iter().enumerate() {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        // Every line of the small programs; a stride through the corpus to stay fast.
        let step = if k < 40 { 1 } else { 4 };
        for skip in (k % step..lines.len()).step_by(step) {
            let mutated: String = lines
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != skip)
                .map(|(_, l)| format!("{l}\n"))
                .collect();
            let file = SourceFile::new("mutated.py", mutated);
            let what = format!("{}: line {} deleted", path.display(), skip + 1);
            if scripts_without_internal_error(&file, &what) {
                runs += 1;
            }
        }
    }
    assert!(runs > 500, "only {runs} mutated programs parsed");
}

/// Swapping one type name for another on one line (`int` → `float`, `Tensor` → `int`, …) gives
/// type errors, never a panic or IR the verifier rejects.
#[test]
fn no_internal_error_on_programs_with_a_type_swapped() {
    const SWAPS: &[(&str, &str)] = &[
        ("int", "float"),
        ("float", "int"),
        ("Tensor", "int"),
        ("int", "Tensor"),
        ("List[", "Optional["),
        ("Optional[", "List["),
        ("bool", "Tensor"),
        ("None", "0"),
        ("0", "None"),
        ("x", "y"),
    ];
    let files = mutation_bases();
    let mut runs = 0;
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        for (from, to) in SWAPS {
            // Each of the first few occurrences, one at a time.
            let hits: Vec<usize> = text.match_indices(from).map(|(i, _)| i).take(8).collect();
            for at in hits {
                let mutated = format!("{}{}{}", &text[..at], to, &text[at + from.len()..]);
                let file = SourceFile::new("mutated.py", mutated);
                let what = format!("{}: `{from}` -> `{to}`", path.display());
                scripts_without_internal_error(&file, &what);
                runs += 1;
            }
        }
    }
    assert!(runs > 500, "only {runs} mutated programs");
}

/// The deepest programs the parser accepts script without overflowing a test thread's stack.
#[test]
fn deep_nesting_does_not_overflow() {
    let chain = format!(
        "def f(x: int) -> int:\n    return {}\n",
        vec!["x"; 480].join(" + ")
    );
    let brackets = format!(
        "def g(x: int) -> int:\n    return {}x{}\n",
        "(-".repeat(90),
        ")".repeat(90)
    );
    let mut ifs = String::from("def h(x: int) -> int:\n");
    for i in 0..60 {
        ifs.push_str(&format!("{}if x > {i}:\n", "    ".repeat(i + 1)));
    }
    ifs.push_str(&format!("{}x = x + 1\n    return x\n", "    ".repeat(61)));
    for (name, src) in [("chain", chain), ("brackets", brackets), ("ifs", ifs)] {
        let file = SourceFile::new(format!("{name}.py"), src);
        match pyjit_syntax::parse_module(&file) {
            Ok(m) => {
                if let Err(d) = pyjit_script::script_module(&file, &m) {
                    panic!("{name}: {}", render_all(&file, &d));
                }
            }
            Err(d) => panic!("{name} does not parse: {}", render_all(&file, &d)),
        }
    }
}
