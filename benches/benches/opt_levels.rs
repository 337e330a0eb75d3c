//! Run-time effect of the optimization levels: a few corpus programs (tests/programs/), each
//! called with the arguments of one of its cases (its `args.txt`, parsed by the facade's ARG
//! parser), at `-O0` and at `-O2` on both backends. Compilation (specialization, the pipeline,
//! Cranelift) happens in `Program::prepare` before timing, so only calls are measured.
//!
//! Benchmark ids are `opt_levels/<program>/<backend>/<level>`; the ratio -O0/-O2 of a program
//! and backend is the effect of the middle end there. The cases are chosen small (the
//! interpreter at -O0 runs the generic IR, the slowest configuration) so the whole bench stays
//! short. A program or backend that cannot run a case is reported on stderr and skipped rather
//! than failing the others: this bench measures, the corpus tests check.

use criterion::{Criterion, criterion_group, criterion_main};
use pyjit::args::{fit_arg, parse_arg, split_words};
use pyjit::opt::manager::OptLevel;
use pyjit::{Backend, Options, Program, SourceFile, Value};
use std::hint::black_box;
use std::path::{Path, PathBuf};

/// (program, case folder): scalar and control-flow loops first, then tensor-heavy programs.
const CASES: &[(&str, &str)] = &[
    ("scalar_loop", "1"),  // scalar_loop 100
    ("cf_collatz", "0"),   // collatz_steps 27
    ("mandelbrot", "0"),   // mandelbrot 12 30
    ("softmax_rows", "0"), // the largest of its matrices
    ("mlp", "0"),
    ("rw_attention", "0"),
];

fn programs_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/programs")
}

/// The function name and argument values of case `dir` of `program`, as `pyjit run` and the
/// corpus harness read them: ARG words fitted to the parameter types, defaults for the rest.
fn case_args(program: &Program, dir: &Path) -> Result<(String, Vec<Value>), String> {
    let line = std::fs::read_to_string(dir.join("args.txt")).map_err(|e| e.to_string())?;
    let words = split_words(line.trim())?;
    let (name, rest) = words.split_first().ok_or("empty args.txt")?;
    let params = program.params(name).map_err(|e| e.to_string())?;
    let defaults = program.defaults(name).map_err(|e| e.to_string())?;
    let mut args = Vec::new();
    for (i, (pname, ty)) in params.iter().enumerate() {
        match rest.get(i) {
            Some(w) => args.push(fit_arg(&parse_arg(w)?, ty, pname, dir)?),
            None => args.push(
                defaults
                    .get(i)
                    .cloned()
                    .flatten()
                    .ok_or_else(|| format!("no value for parameter `{pname}`"))?,
            ),
        }
    }
    Ok((name.clone(), args))
}

fn opt_levels(c: &mut Criterion) {
    let mut group = c.benchmark_group("opt_levels");
    for &(prog, case) in CASES {
        let path = programs_dir().join(format!("{prog}.py"));
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("skipping {prog}: {}: {e}", path.display());
                continue;
            }
        };
        let dir = programs_dir().join(format!("{prog}.cases")).join(case);
        for backend in [Backend::Native, Backend::Interp] {
            for (level, label) in [(OptLevel::O0, "O0"), (OptLevel::O2, "O2")] {
                let options = Options {
                    backend,
                    ..Options::at_level(level)
                };
                let id = format!("{prog}/{}/{label}", backend.name());
                let program =
                    match Program::compile_with(SourceFile::new(prog, text.clone()), options) {
                        Ok(p) => p,
                        Err(d) => {
                            eprintln!("skipping {id}: {} compile diagnostics", d.len());
                            continue;
                        }
                    };
                let (func, args) = match case_args(&program, &dir) {
                    Ok(x) => x,
                    Err(e) => {
                        eprintln!("skipping {id}: {e}");
                        continue;
                    }
                };
                // Compile outside the timing, then check that the case runs at all here.
                let mut sink = Vec::new();
                if let Err(e) = program
                    .prepare(&func, &args)
                    .and_then(|()| program.call_with_output(&func, args.clone(), &mut sink))
                {
                    eprintln!("skipping {id}: {e}");
                    continue;
                }
                group.bench_function(&id, |b| {
                    b.iter_batched(
                        || args.clone(),
                        |args| {
                            // Prints go to a buffer: a terminal would dominate the timing.
                            sink.clear();
                            black_box(program.call_with_output(&func, args, &mut sink))
                        },
                        criterion::BatchSize::SmallInput,
                    )
                });
            }
        }
    }
    group.finish();
}

criterion_group!(benches, opt_levels);
criterion_main!(benches);
