//! Runtime kernels: elementwise ops and reductions at 1k and 4M elements, matmul 512×1024
//! (× 1024×512). NumPy comparison: tests/oracle/runtime/bench_numpy.py times the same cases.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use pyjit_runtime::{DType, Scalar, Tensor, ops};
use std::hint::black_box;

fn data(n: usize, dtype: DType) -> Tensor {
    let v: Vec<f64> = (0..n)
        .map(|i| ((i * 7919) % 1000) as f64 / 100.0 - 5.0)
        .collect();
    Tensor::from_vec(v, &[n]).unwrap().to_dtype(dtype).unwrap()
}

fn elementwise(c: &mut Criterion) {
    let mut g = c.benchmark_group("elementwise");
    for &n in &[1_000usize, 4_000_000] {
        let a = data(n, DType::Float32);
        let b = data(n, DType::Float32);
        g.throughput(Throughput::Elements(n as u64));
        g.bench_with_input(BenchmarkId::new("add_f32", n), &n, |bch, _| {
            bch.iter(|| ops::add(black_box(&a), black_box(&b)).unwrap())
        });
        g.bench_with_input(BenchmarkId::new("mul_scalar_f32", n), &n, |bch, _| {
            bch.iter(|| ops::mul_scalar(black_box(&a), Scalar::Float(2.0)).unwrap())
        });
        g.bench_with_input(BenchmarkId::new("exp_f32", n), &n, |bch, _| {
            bch.iter(|| ops::exp(black_box(&a)).unwrap())
        });
        let r = a.reshape(&[-1, 1000]).unwrap();
        let row = b.slice(0, Some(0), Some(1000), 1).unwrap();
        g.bench_with_input(BenchmarkId::new("add_broadcast_f32", n), &n, |bch, _| {
            bch.iter(|| ops::add(black_box(&r), black_box(&row)).unwrap())
        });
        let ai = data(n, DType::Int64);
        g.bench_with_input(BenchmarkId::new("floor_divide_i64", n), &n, |bch, _| {
            bch.iter(|| ops::floor_divide_scalar(black_box(&ai), Scalar::Int(3)).unwrap())
        });
    }
    g.finish();
}

fn reductions(c: &mut Criterion) {
    let mut g = c.benchmark_group("reduction");
    for &n in &[1_000usize, 4_000_000] {
        let a = data(n, DType::Float32);
        g.throughput(Throughput::Elements(n as u64));
        g.bench_with_input(BenchmarkId::new("sum_f32", n), &n, |bch, _| {
            bch.iter(|| ops::sum(black_box(&a), None, false, None).unwrap())
        });
        g.bench_with_input(BenchmarkId::new("max_f32", n), &n, |bch, _| {
            bch.iter(|| ops::max_all(black_box(&a)).unwrap())
        });
        let m = a.reshape(&[-1, 1000]).unwrap();
        g.bench_with_input(BenchmarkId::new("sum_rows_f32", n), &n, |bch, _| {
            bch.iter(|| ops::sum(black_box(&m), Some(&[1]), false, None).unwrap())
        });
        g.bench_with_input(BenchmarkId::new("softmax_rows_f32", n), &n, |bch, _| {
            bch.iter(|| ops::softmax(black_box(&m), -1, None).unwrap())
        });
    }
    g.finish();
}

fn matmul(c: &mut Criterion) {
    let mut g = c.benchmark_group("matmul");
    g.sample_size(20);
    for dtype in [DType::Float32, DType::Float64] {
        let a = data(512 * 1024, dtype).reshape(&[512, 1024]).unwrap();
        let b = data(1024 * 512, dtype).reshape(&[1024, 512]).unwrap();
        g.throughput(Throughput::Elements(2 * 512 * 1024 * 512));
        g.bench_function(BenchmarkId::new("512x1024x512", dtype.name()), |bch| {
            bch.iter(|| ops::matmul(black_box(&a), black_box(&b)).unwrap())
        });
    }
    g.finish();
}

criterion_group!(benches, elementwise, reductions, matmul);
criterion_main!(benches);
