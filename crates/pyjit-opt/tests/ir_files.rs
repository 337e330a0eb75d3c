//! IR file tests of the passes, in Cranelift's style. Each `tests/ir/<pass>/*.ir` file holds:
//!
//! ```text
//! ; passes: constfold,dce          the pipeline to run (required)
//! ; run: @f 3 2.5 true             optional: call @f with these scalar arguments before and
//!                                  after the passes; results, prints and errors must agree
//! ; any other `;` line is a comment saying what the test is about
//! func @f(...) -> ... { ... }      the input IR
//! ; ---- expected ----
//! ; stats constfold: folded=2 …    blessed output: the statistics of each pass run, then the
//! func @f(...) ...                 module as the printer writes it (without spans)
//! ```
//!
//! The output must verify. `PYJIT_BLESS=1` (or `cargo xtask bless`) rewrites the expected
//! sections; review the diff before committing.

mod common;

use pyjit_interp::Value;
use pyjit_ir::{Module, parse_module, print_module_without_spans, verify_module};
use pyjit_opt::manager::{PipelineConfig, run_pipeline};
use std::path::{Path, PathBuf};

const SEPARATOR: &str = "; ---- expected ----";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/ir")
}

fn parse_arg(s: &str) -> Result<Value, String> {
    Ok(match s {
        "true" => Value::Bool(true),
        "false" => Value::Bool(false),
        "none" => Value::None,
        _ if s.contains(['.', 'e', 'n']) => {
            Value::Float(s.parse().map_err(|_| format!("bad float `{s}`"))?)
        }
        _ => Value::Int(s.parse().map_err(|_| format!("bad int `{s}`"))?),
    })
}

/// Runs `@name(args)` and renders what happened (result or error, and the printed output).
fn outcome(m: &Module, name: &str, args: &[Value]) -> String {
    let Some(id) = m.function_by_name(name) else {
        return format!("no function @{name}");
    };
    common::outcome(m, id, args.to_vec())
}

fn run_file(path: &Path, bless: bool) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let (input, expected) = match text.split_once(&format!("{SEPARATOR}\n")) {
        Some((a, b)) => (a.to_string(), b.to_string()),
        None => (text.clone(), String::new()),
    };
    let mut passes = None;
    let mut runs = Vec::new();
    let mut ir = String::new();
    for line in input.lines() {
        if let Some(rest) = line.strip_prefix("; passes:") {
            passes = Some(PipelineConfig::parse_pass_list(rest).map_err(|e| e.to_string())?);
        } else if let Some(rest) = line.strip_prefix("; run:") {
            let mut words = rest.split_whitespace();
            let name = words
                .next()
                .and_then(|w| w.strip_prefix('@'))
                .ok_or("`; run:` needs @function")?
                .to_string();
            let args = words.map(parse_arg).collect::<Result<Vec<_>, _>>()?;
            runs.push((name, args));
        } else if !line.starts_with(';') {
            ir.push_str(line);
            ir.push('\n');
        }
    }
    let passes = passes.ok_or("missing `; passes:` header")?;
    let m = parse_module(&ir).map_err(|e| format!("input does not parse: {e}"))?;
    verify_module(&m).map_err(|e| format!("input does not verify: {e:?}"))?;
    let config = PipelineConfig {
        passes: Some(passes),
        verify: true,
        ..PipelineConfig::default()
    };
    let mut opt = m.clone();
    let report = run_pipeline(&mut opt, &config);
    if let Some((p, errs)) = &report.verify_failure {
        return Err(format!("output of `{p}` does not verify: {errs:?}"));
    }
    verify_module(&opt).map_err(|e| format!("output does not verify: {e:?}"))?;
    for (name, args) in &runs {
        let before = outcome(&m, name, args);
        let after = outcome(&opt, name, args);
        if before != after {
            return Err(format!(
                "@{name}{args:?} changed behaviour:\n--- before\n{before}--- after\n{after}"
            ));
        }
    }
    let mut got = String::new();
    for r in &report.runs {
        got.push_str(&format!("; stats {}: {}\n", r.pass, r.stats.summary()));
    }
    got.push_str(&print_module_without_spans(&opt));
    if got != expected {
        if bless {
            let new = format!("{}{SEPARATOR}\n{got}", input);
            std::fs::write(path, new).map_err(|e| e.to_string())?;
        } else {
            return Err(format!(
                "output differs (PYJIT_BLESS=1 rewrites):\n--- got\n{got}--- expected\n{expected}"
            ));
        }
    }
    Ok(())
}

#[test]
fn ir_file_tests() {
    let bless = std::env::var_os("PYJIT_BLESS").is_some();
    let mut failures = Vec::new();
    let mut per_pass = Vec::new();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root())
        .expect("tests/ir exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir() && p.file_name().is_some_and(|n| n != "roundtrip"))
        .collect();
    dirs.sort();
    for dir in &dirs {
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "ir"))
            .collect();
        files.sort();
        per_pass.push((
            dir.file_name().unwrap().to_string_lossy().into_owned(),
            files.len(),
        ));
        for f in &files {
            if let Err(e) = run_file(f, bless) {
                failures.push(format!("{}: {e}", f.display()));
            }
        }
    }
    for pass in pyjit_opt::passes::ALL_PASSES {
        let n = per_pass
            .iter()
            .find(|(p, _)| p == pass)
            .map_or(0, |(_, n)| *n);
        if n < 10 {
            failures.push(format!("tests/ir/{pass}: {n} files, expected at least 10"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
