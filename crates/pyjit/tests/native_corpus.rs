//! Differential test over the program corpus (tests/programs/): every case of every program
//! runs natively and on the interpreter; results (values, errors with class, message, span and
//! call stack, and printed output) must be identical. The interpreter is itself checked against
//! the PyTorch outputs by the facade's harness, so agreement here means native == PyTorch.

#[path = "native_common/mod.rs"]
mod common;
use common::*;
use pyjit_codegen::Value;
use pyjit_ir::Type;
use std::path::{Path, PathBuf};

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/programs")
}

/// Splits `[a,b,(c,d)]`-style text at top-level commas.
fn split_top(s: &str) -> Vec<&str> {
    let (mut depth, mut start, mut out) = (0, 0, Vec::new());
    for (i, ch) in s.char_indices() {
        match ch {
            '[' | '(' => depth += 1,
            ']' | ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if start < s.len() {
        out.push(&s[start..]);
    }
    out
}

/// Parses one argument as `pyjit run` does (tests/programs/README.md), converted to `ty`.
fn parse_arg(text: &str, ty: &Type, dir: &Path) -> Option<Value> {
    let elem = |t: &Type| -> Type {
        match t {
            Type::List(e) => (**e).clone(),
            Type::Optional(e) => (**e).clone(),
            _ => Type::None,
        }
    };
    if let Type::Optional(inner) = ty {
        return if text == "none" {
            Some(Value::None)
        } else {
            parse_arg(text, inner, dir)
        };
    }
    Some(if text.ends_with(".npy") {
        Value::Tensor(pyjit_runtime::npy::read_npy(dir.join(text)).ok()?)
    } else if let Some(inner) = text.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
        let e = elem(ty);
        Value::list(
            split_top(inner)
                .into_iter()
                .map(|x| parse_arg(x, &e, dir))
                .collect::<Option<_>>()?,
        )
    } else if let Some(inner) = text.strip_prefix('(').and_then(|t| t.strip_suffix(')')) {
        let Type::Tuple(ts) = ty else { return None };
        let parts = split_top(inner);
        if parts.len() != ts.len() {
            return None;
        }
        Value::tuple(
            parts
                .into_iter()
                .zip(ts)
                .map(|(x, t)| parse_arg(x, t, dir))
                .collect::<Option<_>>()?,
        )
    } else if text == "true" || text == "false" {
        Value::Bool(text == "true")
    } else if text == "none" {
        Value::None
    } else if let Ok(i) = text.parse::<i64>() {
        if *ty == Type::Float {
            Value::Float(i as f64)
        } else {
            Value::Int(i)
        }
    } else {
        Value::Float(match text {
            "inf" => f64::INFINITY,
            "-inf" => f64::NEG_INFINITY,
            "nan" => f64::NAN,
            t => t.parse().ok()?,
        })
    })
}

#[test]
fn corpus_native_equals_interpreter() {
    let mut programs: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .expect("tests/programs")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
        .collect();
    programs.sort();
    let (mut compiled, mut not_scripted, mut cases, mut skipped) = (0, 0, 0, 0);
    for prog in &programs {
        let src = std::fs::read_to_string(prog).unwrap();
        let file = pyjit_syntax::SourceFile::new(prog.file_name().unwrap().to_string_lossy(), src);
        let Ok(m) = pyjit_script::script_source(&file) else {
            // Scripting errors are the frontend's tests (error programs are expected to fail).
            not_scripted += 1;
            continue;
        };
        if pyjit_ir::verify_module(&m).is_err() {
            not_scripted += 1;
            continue;
        }
        let nm = native(&m);
        compiled += 1;
        let case_root = prog.with_extension("cases");
        let Ok(dirs) = std::fs::read_dir(&case_root) else {
            continue;
        };
        let mut dirs: Vec<PathBuf> = dirs.filter_map(|e| e.ok().map(|e| e.path())).collect();
        dirs.sort();
        for dir in dirs {
            let Ok(line) = std::fs::read_to_string(dir.join("args.txt")) else {
                continue;
            };
            let fields: Vec<&str> = line.split_whitespace().collect();
            let Some(fid) = m.function_by_name(fields[0]) else {
                skipped += 1;
                continue;
            };
            let params = m.func(fid).param_types();
            // Omitted trailing defaults are filled in by the facade, not here.
            if fields.len() - 1 != params.len() {
                skipped += 1;
                continue;
            }
            let parse = || -> Option<Vec<Value>> {
                fields[1..]
                    .iter()
                    .zip(&params)
                    .map(|(t, ty)| parse_arg(t, ty, &dir))
                    .collect()
            };
            if parse().is_none() {
                skipped += 1;
                continue;
            }
            // Every tensor handle and object native code created is released, on error paths too.
            let (t0, o0) = live_references();
            check_same_fresh(&m, &nm, fields[0], || parse().unwrap_or_default());
            assert_eq!(
                live_references(),
                (t0, o0),
                "{}: leaked references",
                dir.display()
            );
            cases += 1;
        }
    }
    eprintln!(
        "corpus: {} programs, {compiled} compiled natively, {not_scripted} not scripted, \
         {cases} cases identical, {skipped} cases skipped (omitted defaults)",
        programs.len()
    );
    assert!(compiled > 50, "too few programs compiled: {compiled}");
    assert!(cases > 150, "too few cases ran: {cases}");
}
