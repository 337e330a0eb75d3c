//! The program corpus at every optimization level: each case of `tests/programs/` runs on the
//! reference interpreter after the `-O0`, `-O1` and `-O2` pipelines (on the IR specialized for
//! the case's arguments, as `pyjit run` would), and the outcomes must be identical: the result
//! as printed, the printed output, and the error class and message. The pipelines run with the
//! verifier after every pass.
//!
//! The test also sums op counts before/after each level and the statistics of every pass over
//! the corpus, prints them (`--nocapture` shows the table), and checks that every pass of the
//! `-O2` pipeline fires somewhere in the corpus.

mod common;

use common::outcome;
use pyjit::args::{fit_arg, parse_arg, split_words};
use pyjit::{Program, SourceFile, Value};
use pyjit_opt::manager::{OptLevel, PipelineConfig, run_pipeline};
use pyjit_opt::passes::{PassStats, util::module_op_count};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/programs")
}

/// Reads a case's arguments afresh (programs may write their tensor arguments in place).
fn case_args(program: &Program, dir: &Path) -> Option<(String, Vec<Value>)> {
    let line = std::fs::read_to_string(dir.join("args.txt")).ok()?;
    let words = split_words(line.trim()).ok()?;
    let (name, rest) = words.split_first()?;
    let params = program.params(name).ok()?;
    let defaults = program.defaults(name).ok()?;
    let mut args = Vec::new();
    for (i, (pname, ty)) in params.iter().enumerate() {
        match rest.get(i) {
            Some(w) => args.push(fit_arg(&parse_arg(w).ok()?, ty, pname, dir).ok()?),
            None => args.push(defaults.get(i).cloned().flatten()?),
        }
    }
    Some((name.clone(), args))
}

#[test]
fn corpus_identical_at_every_level() {
    let mut programs: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .expect("tests/programs exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
        .collect();
    programs.sort();
    let levels = [OptLevel::O0, OptLevel::O1, OptLevel::O2];
    let mut failures = Vec::new();
    let mut ops_before = 0usize;
    let mut ops_after = [0usize; 3];
    let mut stats: BTreeMap<String, PassStats> = BTreeMap::new();
    let mut cases_run = 0;
    for path in &programs {
        let text = std::fs::read_to_string(path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let Ok(program) = Program::compile(SourceFile::new(name.clone(), text)) else {
            continue; // compile errors are the frontend's corpus test's business
        };
        let cases_dir = path.with_extension("cases");
        let mut cases: Vec<PathBuf> = std::fs::read_dir(&cases_dir)
            .map(|d| d.map(|e| e.unwrap().path()).collect())
            .unwrap_or_default();
        cases.sort();
        for case in &cases {
            let Some((func, args)) = case_args(&program, case) else {
                continue;
            };
            let (module, id) = match program.specialize(&func, &args) {
                Ok(x) => x,
                Err(_) => match program.module().function_by_name(&func) {
                    Some(id) => (program.module().clone(), id),
                    None => continue,
                },
            };
            cases_run += 1;
            ops_before += module_op_count(&module);
            let mut reference = None;
            for (li, &level) in levels.iter().enumerate() {
                let mut m = module.clone();
                let config = PipelineConfig {
                    verify: true,
                    ..PipelineConfig::for_level(level)
                };
                let report = run_pipeline(&mut m, &config);
                if let Some((p, errs)) = &report.verify_failure {
                    failures.push(format!(
                        "{}: {level}: `{p}` broke the IR: {errs:?}",
                        case.display()
                    ));
                    continue;
                }
                ops_after[li] += report.ops_after;
                if level == OptLevel::O2 {
                    for (p, s) in report.stats_by_pass() {
                        stats.entry(p).or_default().add(&s);
                    }
                }
                let Some((_, fresh)) = case_args(&program, case) else {
                    continue;
                };
                let got = outcome(&m, id, fresh);
                match &reference {
                    None => reference = Some(got),
                    Some(r) if *r != got => failures.push(format!(
                        "{}: {level} differs from -O0:\n--- -O0\n{r}--- {level}\n{got}",
                        case.display()
                    )),
                    Some(_) => {}
                }
            }
        }
    }
    println!("corpus: {cases_run} cases, ops before {ops_before}");
    for (li, level) in levels.iter().enumerate() {
        println!("  {level}: {} ops after", ops_after[li]);
    }
    println!("-O2 statistics per pass over the corpus:");
    for (p, s) in &stats {
        println!("  {p:<14} {}", s.summary());
    }
    assert!(cases_run > 100, "only {cases_run} corpus cases ran");
    for p in OptLevel::O2.pipeline() {
        if stats.get(*p).is_none_or(|s| s.rewrites == 0) {
            failures.push(format!("pass `{p}` never fired on the corpus"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
