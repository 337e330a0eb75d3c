//! Never a panic: every function of every Python file under tests/ (the program corpus, the
//! scripting error corpus, the syntax corpus, the trace programs) is evaluated eagerly and traced
//! on made-up arguments. Errors are fine (most arguments do not fit); panics are not.

mod common;

use pyjit_interp::Value;
use pyjit_runtime::Tensor;
use pyjit_syntax::ast::{self, StmtKind};
use std::path::Path;

fn arg_for(p: &ast::Param) -> Value {
    match p
        .annotation
        .as_ref()
        .and_then(|a| a.dotted_name())
        .as_deref()
    {
        Some("int") => Value::Int(2),
        Some("float") => Value::Float(0.5),
        Some("bool") => Value::Bool(true),
        Some("str") => Value::str("s"),
        _ => match p.annotation.as_ref().map(|a| &a.kind) {
            Some(ast::ExprKind::Subscript { .. }) => {
                Value::list(vec![Value::Int(1), Value::Int(2)])
            }
            _ => Value::Tensor(
                Tensor::from_vec(vec![0.5f32, -1.5, 2.0, 0.25], &[2, 2]).expect("2x2"),
            ),
        },
    }
}

fn py_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            py_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "py") {
            out.push(p);
        }
    }
}

#[test]
fn no_python_file_under_tests_makes_the_tracer_panic() {
    let root = common::repo_root().join("tests");
    let mut files = Vec::new();
    for sub in ["programs", "script", "syntax", "trace"] {
        py_files(&root.join(sub), &mut files);
    }
    files.sort();
    assert!(files.len() > 150, "found only {} files", files.len());
    let mut calls = 0;
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let file = pyjit_syntax::SourceFile::new(path.display().to_string(), text);
        let Ok(module) = pyjit_syntax::parse_module(&file) else {
            continue;
        };
        for s in &module.body {
            let StmtKind::FunctionDef(def) = &s.kind else {
                continue;
            };
            let args: Vec<Value> = def.params.args.iter().map(arg_for).collect();
            let name = def.name.name.clone();
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let mut out = Vec::new();
                let _ = pyjit_trace::eval_function_limited(
                    &file,
                    &module,
                    &name,
                    args.clone(),
                    &mut out,
                    20_000,
                );
            }));
            assert!(
                r.is_ok(),
                "eager evaluation of {}::{name} panicked",
                path.display()
            );
            calls += 1;
        }
    }
    assert!(calls > 300, "only {calls} functions evaluated");
}

/// List indices at the int64 extremes are Python's `IndexError`s (Python's normalization, from
/// pyjit-value, shared with the interpreter), never an overflow.
#[test]
fn extreme_list_indices_raise_index_error() {
    let src = "\
def get(n: int) -> int:
    l = [1, 2]
    return l[n]


def set(n: int) -> int:
    l = [1, 2]
    l[n] = 3
    return l[0]


def delete(n: int) -> int:
    l = [1, 2]
    del l[n]
    return l[0]


def pop(n: int) -> int:
    l = [1, 2]
    return l.pop(n)


def insert(n: int) -> int:
    l = [1, 2]
    l.insert(n, 0)
    return l[0]
";
    let file = pyjit_syntax::SourceFile::new("extreme.py", src);
    let module = pyjit_syntax::parse_module(&file).expect("parses");
    for n in [i64::MIN, i64::MAX, -3, 2] {
        for f in ["get", "set", "delete", "pop"] {
            let r = pyjit_trace::eval_function_to(
                &file,
                &module,
                f,
                vec![Value::Int(n)],
                &mut std::io::sink(),
            );
            let e = r.expect_err("out of range");
            assert_eq!(e.kind, "IndexError", "{f}({n}): {e:?}");
        }
        let r = pyjit_trace::eval_function_to(
            &file,
            &module,
            "insert",
            vec![Value::Int(n)],
            &mut std::io::sink(),
        );
        let want = if n < 0 { 0 } else { 1 };
        assert!(
            matches!(r, Ok(Value::Int(v)) if v == want),
            "insert({n}): {r:?}"
        );
    }
}
