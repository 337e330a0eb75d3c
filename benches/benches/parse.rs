//! Throughput of the syntax front end (lex + indentation layer + LR parse + AST) on a generated
//! 10,000-line file. Criterion reports bytes/s; the line rate is printed once for the record.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use pyjit_benches::python_source;
use pyjit_syntax::{SourceFile, parse_module};
use std::hint::black_box;
use std::time::Instant;

fn parse(c: &mut Criterion) {
    let text = python_source(10_000);
    let lines = text.lines().count();
    let file = SourceFile::new("bench.py", text);
    assert!(parse_module(&file).is_ok(), "the generated file must parse");

    // One explicit measurement in lines/s, since criterion reports only one throughput unit. The
    // fastest of several rounds is the least disturbed by other processes on a shared machine.
    let secs = (0..20)
        .map(|_| {
            let start = Instant::now();
            black_box(parse_module(black_box(&file)).ok());
            start.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min);
    println!(
        "parse: {lines} lines, {} bytes, fastest of 20: {:.1} ms = {:.0} lines/s, {:.1} MB/s",
        file.text.len(),
        secs * 1e3,
        lines as f64 / secs,
        file.text.len() as f64 / secs / 1e6
    );

    let mut group = c.benchmark_group("parse");
    group.throughput(Throughput::Bytes(file.text.len() as u64));
    group.sample_size(20);
    group.bench_function("module_10k_lines", |b| {
        b.iter(|| parse_module(black_box(&file)))
    });
    group.finish();
}

criterion_group!(benches, parse);
criterion_main!(benches);
