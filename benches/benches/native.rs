//! Native backend benchmarks (issue 5), measured side by side in one run:
//! (a) the Collatz scalar loop of shared/peerbench/workloads/scalar_loop.py, native vs the
//!     interpreter (and Numba's time for the same `n`, printed when a Python with numba is found:
//!     set PYJIT_NUMBA_PYTHON, default python3; nothing fails without it);
//! (b) source text → callable native function for a 20-line function;
//! (c) the cost of one call of a compiled function on small tensors, next to the tensor op
//!     called directly on the runtime, and of a scalar function (pure call overhead).

use criterion::{Criterion, criterion_group, criterion_main};
use pyjit_codegen::{NativeModule, Options, Value};
use pyjit_runtime::Tensor;
use pyjit_syntax::SourceFile;
use std::hint::black_box;

const N: i64 = 100_000;

const COLLATZ: &str = include_str!("../../tests/programs/scalar_loop.py");

/// Twenty lines: loops, branches, floats, ints and a call.
const TWENTY: &str = "\
import math

def clamp(x: float, lo: float, hi: float) -> float:
    if x < lo:
        return lo
    if x > hi:
        return hi
    return x

def score(n: int, scale: float) -> float:
    acc = 0.0
    k = 0
    for i in range(n):
        v = float(i % 7) * scale - 1.5
        if v > 0.0:
            acc += math.sqrt(v)
        else:
            acc -= clamp(v, -1.0, 1.0)
        while k < i // 3:
            k += 2
    return acc + float(k)
";

const CALLS: &str = "\
import torch
from torch import Tensor

def add(x: Tensor, y: Tensor) -> Tensor:
    return x + y

def inc(a: int) -> int:
    return a + 1
";

fn compile(src: &str) -> (pyjit_ir::Module, NativeModule) {
    let file = SourceFile::new("bench.py", src);
    let m = pyjit_script::script_source(&file).expect("script");
    let nm = NativeModule::compile(&m, &Options::default()).expect("compile");
    (m, nm)
}

/// Numba's time for scalar_loop(N) (compiled once, best of 5), if numba is available.
fn numba_seconds() -> Option<f64> {
    let py = std::env::var("PYJIT_NUMBA_PYTHON").unwrap_or_else(|_| "python3".into());
    let script = format!(
        "import time, numba\n\
         @numba.njit(cache=False)\n\
         def scalar_loop(n):\n    total = 0\n    for i in range(1, n):\n        x = i\n        while x != 1:\n            if x % 2 == 0:\n                x = x // 2\n            else:\n                x = 3 * x + 1\n            total += 1\n    return total\n\
         t = time.perf_counter(); scalar_loop(10); compile_s = time.perf_counter() - t\n\
         best = 1e9\n\
         for _ in range(5):\n    t = time.perf_counter(); r = scalar_loop({N}); best = min(best, time.perf_counter() - t)\n\
         print(best, compile_s, r)\n"
    );
    let out = std::process::Command::new(py)
        .arg("-c")
        .arg(script)
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?;
    let mut it = text.split_whitespace();
    let best: f64 = it.next()?.parse().ok()?;
    let compile: f64 = it.next()?.parse().ok()?;
    eprintln!(
        "numba: scalar_loop({N}) best of 5 = {:.3} ms (first call incl. compile: {:.1} ms)",
        best * 1e3,
        compile * 1e3
    );
    Some(best)
}

/// Best of `k` single calls, in seconds (the protocol used for Numba too).
fn best_of(k: usize, mut f: impl FnMut()) -> f64 {
    (0..k)
        .map(|_| {
            let t = std::time::Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

fn collatz(c: &mut Criterion) {
    let (m, nm) = compile(COLLATZ);
    let f = nm.function("scalar_loop").unwrap();
    let id = m.function_by_name("scalar_loop").unwrap();
    let mut g = c.benchmark_group("collatz_scalar_loop");
    g.sample_size(20);
    g.bench_function(format!("native/n={N}"), |b| {
        b.iter(|| f.call(&[Value::Int(black_box(N))]).unwrap())
    });
    g.finish();
    // Side by side, same protocol (best of 5 single calls), one after the other: native, the
    // interpreter (seconds per call, too slow for criterion's 10 samples) and Numba (LLVM).
    let native = best_of(5, || {
        f.call(&[Value::Int(black_box(N))]).unwrap();
    });
    let interp = best_of(1, || {
        pyjit_interp::run(&m, id, vec![Value::Int(black_box(N))]).unwrap();
    });
    eprintln!(
        "scalar_loop({N}): native best of 5 = {:.3} ms",
        native * 1e3
    );
    eprintln!(
        "scalar_loop({N}): interpreter (1 call) = {:.1} ms ({:.0}x native)",
        interp * 1e3,
        interp / native
    );
    match numba_seconds() {
        Some(nb) => eprintln!("scalar_loop({N}): native / numba = {:.2}", native / nb),
        None => eprintln!("numba: not available (set PYJIT_NUMBA_PYTHON to a Python with numba)"),
    }
}

fn source_to_callable(c: &mut Criterion) {
    let mut g = c.benchmark_group("source_to_callable");
    g.bench_function("20_line_function", |b| {
        b.iter(|| {
            let file = SourceFile::new("bench.py", black_box(TWENTY));
            let m = pyjit_script::script_source(&file).unwrap();
            let nm = NativeModule::compile(&m, &Options::default()).unwrap();
            nm.function("score").unwrap()
        })
    });
    g.finish();
    let (_, nm) = compile(TWENTY);
    let t = nm.times();
    eprintln!(
        "compile phases of the 20-line function: verify {:?}, lower {:?}, cranelift {:?}",
        t.verify, t.lower, t.cranelift
    );
}

fn call_overhead(c: &mut Criterion) {
    let (_, nm) = compile(CALLS);
    let add = nm.function("add").unwrap();
    let inc = nm.function("inc").unwrap();
    let x = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], &[4]).unwrap();
    let y = Tensor::from_vec(vec![0.5f32, 0.5, 0.5, 0.5], &[4]).unwrap();
    let add_id = pyjit_runtime::schema::lookup("add.Tensor").expect("add.Tensor");
    let args = [Value::Tensor(x.clone()), Value::Tensor(y.clone())];
    let mut g = c.benchmark_group("call_small_tensors");
    g.bench_function("native_add_4_f32", |b| {
        b.iter(|| add.call(black_box(&args)).unwrap())
    });
    g.bench_function("runtime_dispatch_add_4_f32", |b| {
        let rt = [
            pyjit_runtime::Value::Tensor(x.clone()),
            pyjit_runtime::Value::Tensor(y.clone()),
            pyjit_runtime::Value::Int(1),
        ];
        b.iter(|| pyjit_runtime::dispatch::call(add_id, black_box(&rt)).unwrap())
    });
    g.bench_function("native_scalar_inc", |b| {
        b.iter(|| inc.call(black_box(&[Value::Int(41)])).unwrap())
    });
    // The same function through the facade a user (and the Python package) calls: binding,
    // argument checks and the code-cache lookup included.
    let f = pyjit::api::Function::script(
        &pyjit::api::Source::new("calls.py", CALLS),
        "inc",
        &pyjit::api::CompileOptions::default(),
    )
    .unwrap();
    let mut sink = std::io::sink();
    g.bench_function("facade_scalar_inc", |b| {
        b.iter(|| {
            f.call_with_output(
                vec![black_box(pyjit::api::Value::Int(41))],
                Vec::new(),
                &mut sink,
            )
            .unwrap()
        })
    });
    g.finish();
}

criterion_group!(benches, collatz, source_to_callable, call_overhead);
criterion_main!(benches);
