//! Scale benchmark (issue 17): how compile time grows with program size, and trace time with a
//! loop's trip count. Not criterion: each configuration runs once (a 100k-line compile is
//! seconds, not microseconds), and the table shows each time and its growth over the size 10×
//! smaller (10× means linear).
//!
//! `cargo bench -p pyjit-benches --bench scale [-- SHAPE...]` where SHAPE is one of `elif`,
//! `functions`, `straight`, `nesting`, `trace` (all by default). `PYJIT_SCALE_MAX=10000` stops
//! at 10k.

use pyjit::traced::{TraceOptions, TracedProgram};
use pyjit::{Backend, Options, Program, SourceFile, Value};
use pyjit_benches::scale;
use pyjit_runtime::Tensor;
use std::time::{Duration, Instant};

fn secs(d: Duration) -> String {
    format!("{:.3}", d.as_secs_f64())
}

fn growth(now: Duration, before: Option<Duration>) -> String {
    match before {
        Some(b) if b.as_secs_f64() > 0.0 => format!("{:.1}x", now.as_secs_f64() / b.as_secs_f64()),
        _ => "-".to_string(),
    }
}

/// Compiles `src` (frontend) and then its entry for `args` natively at -O2 (specialization,
/// passes, Cranelift); runs it once.
fn compile_once(src: &str, entry: &str, args: Vec<Value>) -> (Duration, Duration, Duration) {
    let t0 = Instant::now();
    let options = Options {
        backend: Backend::Native,
        ..Options::default()
    };
    let p = Program::compile_with(SourceFile::new("scale.py", src), options)
        .unwrap_or_else(|d| panic!("{:?}", d.first()));
    let frontend = t0.elapsed();
    let t1 = Instant::now();
    p.prepare(entry, &args).unwrap_or_else(|e| panic!("{e}"));
    let backend = t1.elapsed();
    let t2 = Instant::now();
    p.call(entry, args).unwrap_or_else(|e| panic!("{e}"));
    (frontend, backend, t2.elapsed())
}

fn main() {
    let wanted: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let max: usize = std::env::var("PYJIT_SCALE_MAX")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000);
    let sizes: Vec<usize> = [1_000, 10_000, 100_000]
        .into_iter()
        .filter(|&n| n <= max)
        .collect();
    let on = |s: &str| wanted.is_empty() || wanted.iter().any(|w| w == s);
    println!(
        "{:<10} {:>8} {:>12} {:>14} {:>8} {:>9} {:>8}",
        "shape", "lines", "frontend s", "spec+opt+cg s", "run s", "total s", "growth"
    );
    for (shape, generate) in [
        ("elif", scale::elif_chain as fn(usize) -> String),
        ("functions", scale::many_functions),
        ("straight", scale::straight_line),
        ("nesting", scale::deep_nesting),
    ] {
        if !on(shape) {
            continue;
        }
        let mut before = None;
        for &n in &sizes {
            let src = generate(n);
            let lines = src.lines().count();
            let (fe, be, run) = compile_once(&src, "main", vec![Value::Int(3)]);
            let total = fe + be;
            println!(
                "{shape:<10} {lines:>8} {:>12} {:>14} {:>8} {:>9} {:>8}",
                secs(fe),
                secs(be),
                secs(run),
                secs(total),
                growth(total, before)
            );
            before = Some(total);
        }
    }
    if on("trace") {
        let mut before = None;
        for &n in &sizes {
            let t0 = Instant::now();
            let mut p = TracedProgram::from_source(
                SourceFile::new("loop.py", scale::TRACE_LOOP),
                "main",
                TraceOptions::default(),
                Backend::Native,
            )
            .unwrap();
            let x = Value::Tensor(Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], &[4]).unwrap());
            p.call_to(vec![x, Value::Int(n as i64)], &mut std::io::sink())
                .unwrap_or_else(|e| panic!("{e}"));
            let total = t0.elapsed();
            println!(
                "{:<10} {n:>8} {:>12} {:>14} {:>8} {:>9} {:>8}",
                "trace",
                "-",
                "-",
                "-",
                secs(total),
                growth(total, before)
            );
            before = Some(total);
        }
    }
}
