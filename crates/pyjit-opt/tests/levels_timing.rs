//! Run-time effect of the optimization levels on the interpreter: every corpus case runs
//! `REPEAT` times on the IR optimized at `-O0` and at `-O2` (interleaved, after a warm-up), and
//! the table gives, per level and program, the sum over its cases of the fastest run. Ignored by
//! default (it measures, it does not check); run it with
//! `cargo test --release -p pyjit-opt --test levels_timing -- --ignored --nocapture`.

use pyjit::args::{fit_arg, parse_arg, split_words};
use pyjit::{Program, SourceFile, Value};
use pyjit_interp::{Config, Interpreter};
use pyjit_opt::manager::{OptLevel, PipelineConfig, run_pipeline};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const REPEAT: usize = 20;

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
#[ignore]
fn time_o0_vs_o2() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/programs");
    let mut programs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
        .collect();
    programs.sort();
    let mut rows = Vec::new();
    let mut total = [Duration::ZERO; 2];
    for path in &programs {
        let text = std::fs::read_to_string(path).unwrap();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let Ok(program) = Program::compile(SourceFile::new(name.clone(), text)) else {
            continue;
        };
        let mut cases: Vec<PathBuf> = std::fs::read_dir(path.with_extension("cases"))
            .map(|d| d.map(|e| e.unwrap().path()).collect())
            .unwrap_or_default();
        cases.sort();
        let mut times = [Duration::ZERO; 2];
        for case in &cases {
            let Some((func, args)) = case_args(&program, case) else {
                continue;
            };
            let Ok((module, id)) = program.specialize(&func, &args) else {
                continue;
            };
            let optimized: Vec<_> = [OptLevel::O0, OptLevel::O2]
                .into_iter()
                .map(|level| {
                    let mut m = module.clone();
                    let config = PipelineConfig {
                        verify: false,
                        ..PipelineConfig::for_level(level)
                    };
                    run_pipeline(&mut m, &config);
                    m
                })
                .collect();
            // Interleave the levels (and discard a warm-up round) so that caches and the
            // allocator favour neither.
            let mut best = [Duration::MAX; 2];
            for round in 0..=REPEAT {
                for (li, m) in optimized.iter().enumerate() {
                    let Some((_, fresh)) = case_args(&program, case) else {
                        continue;
                    };
                    let mut sink = Vec::new();
                    let t = Instant::now();
                    let _ = Interpreter::new(m, Config::default(), &mut sink).call(id, fresh);
                    if round > 0 {
                        best[li] = best[li].min(t.elapsed());
                    }
                }
            }
            // The fastest round: the machine is shared, and noise only ever adds time.
            for li in 0..2 {
                if best[li] != Duration::MAX {
                    times[li] += best[li];
                }
            }
        }
        total[0] += times[0];
        total[1] += times[1];
        rows.push((name, times));
    }
    rows.sort_by(|a, b| b.1[0].cmp(&a.1[0]));
    println!(
        "{:<32} {:>10} {:>10} {:>7}",
        "program", "-O0 ms", "-O2 ms", "O2/O0"
    );
    for (name, t) in rows.iter().take(25) {
        let (a, b) = (t[0].as_secs_f64() * 1e3, t[1].as_secs_f64() * 1e3);
        println!("{name:<32} {a:>10.2} {b:>10.2} {:>7.2}", b / a.max(1e-9));
    }
    let (a, b) = (total[0].as_secs_f64() * 1e3, total[1].as_secs_f64() * 1e3);
    println!("{:<32} {a:>10.2} {b:>10.2} {:>7.2}", "ALL", b / a.max(1e-9));
}
