//! Times the runtime kernels of docs/kernels.md's comparison table and prints one JSON object per
//! line: `{"case": ..., "ns": median nanoseconds per call}`. benches/peer_table.py runs this
//! example and the same cases in numpy and torch eager, and prints the side-by-side table. (An
//! example of the runtime crate rather than a binary of pyjit-benches, so that a release build
//! of it needs the runtime only.)
//!
//! Method (the same in the Python script): inputs built once; each case is called repeatedly in
//! batches sized to ~5 ms, for ~0.3 s; the reported value is the median batch time per call.

mod common;

use std::hint::black_box;
use std::time::Duration;

use pyjit_runtime::{Scalar, Tensor, ops};

/// Deterministic inputs in [-5, 5) (the Python side uses the same formula).
fn data(n: usize) -> Tensor {
    let v: Vec<f32> = (0..n)
        .map(|i| ((i * 7919) % 1000) as f32 / 100.0 - 5.0)
        .collect();
    on_kernel_pages(Tensor::from_vec(v, &[n]).expect("shape matches"))
}

/// Positive inputs in [0.01, 10) for log and sqrt.
fn positive(n: usize) -> Tensor {
    let v: Vec<f32> = (0..n)
        .map(|i| ((i * 7919) % 1000) as f32 / 100.0 + 0.01)
        .collect();
    on_kernel_pages(Tensor::from_vec(v, &[n]).expect("shape matches"))
}

/// A copy of `t` in a buffer the runtime allocated: big ones are on 2 MiB pages, as NumPy's big
/// arrays are (the inputs of the peer side), rather than on the 4 KiB pages `collect` gave. `t`
/// itself is never freed: dropped, its buffer would go to the runtime's pool and come back as a
/// kernel output on 4 KiB pages.
fn on_kernel_pages(t: Tensor) -> Tensor {
    let copy = Tensor::zeros(t.shape(), t.dtype()).expect("fits in memory");
    copy.copy_(&t).expect("same shape");
    std::mem::forget(t);
    copy
}

fn matrix(r: usize, c: usize) -> Tensor {
    let v: Vec<f32> = (0..r * c)
        .map(|i| (((i * 7919) % 1000) as f32 / 1000.0 - 0.5) * 0.1)
        .collect();
    Tensor::from_vec(v, &[r, c]).expect("shape matches")
}

fn time(f: impl FnMut()) -> f64 {
    common::median_ns(f, 5e6, Duration::from_millis(300), 5)
}

fn main() {
    let filter: Option<String> = std::env::args().nth(1);
    let emit = |case: String, f: &mut dyn FnMut()| {
        if filter.as_ref().is_some_and(|p| !case.contains(p.as_str())) {
            return;
        }
        let ns = time(f);
        println!("{{\"case\": \"{case}\", \"ns\": {ns:.1}}}");
    };
    for n in [1_000usize, 4_000_000] {
        let x = data(n);
        let y = data(n);
        let p = positive(n);
        let rows = x.reshape(&[-1, 1000]).expect("n is a multiple of 1000");
        emit(format!("tanh/{n}"), &mut || {
            black_box(ops::tanh(black_box(&x)).unwrap());
        });
        emit(format!("gelu/{n}"), &mut || {
            black_box(ops::gelu(black_box(&x), "none").unwrap());
        });
        emit(format!("gelu_tanh/{n}"), &mut || {
            black_box(ops::gelu(black_box(&x), "tanh").unwrap());
        });
        emit(format!("sigmoid/{n}"), &mut || {
            black_box(ops::sigmoid(black_box(&x)).unwrap());
        });
        emit(format!("log/{n}"), &mut || {
            black_box(ops::log(black_box(&p)).unwrap());
        });
        emit(format!("sum/{n}"), &mut || {
            black_box(ops::sum(black_box(&x), None, false, None).unwrap());
        });
        emit(format!("softmax_rows1000/{n}"), &mut || {
            black_box(ops::softmax(black_box(&rows), -1, None).unwrap());
        });
        emit(format!("amax_rows1000/{n}"), &mut || {
            black_box(ops::amax(black_box(&rows), &[-1], false).unwrap());
        });
        emit(format!("exp/{n}"), &mut || {
            black_box(ops::exp(black_box(&x)).unwrap());
        });
        emit(format!("add/{n}"), &mut || {
            black_box(ops::add(black_box(&x), black_box(&y)).unwrap());
        });
        emit(format!("mul_scalar/{n}"), &mut || {
            black_box(ops::mul_scalar(black_box(&x), Scalar::Float(2.0)).unwrap());
        });
        emit(format!("sqrt/{n}"), &mut || {
            black_box(ops::sqrt(black_box(&p)).unwrap());
        });
        // Beyond the table: functions vectorized later (sin/cos & co., float32 pow).
        emit(format!("sin/{n}"), &mut || {
            black_box(ops::sin(black_box(&x)).unwrap());
        });
        emit(format!("pow_scalar/{n}"), &mut || {
            black_box(ops::pow_scalar(black_box(&p), Scalar::Float(1.5)).unwrap());
        });
    }
    // The matmul shapes of peerbench's mlp (b64, b1) and rnn workloads, and a square one.
    for (m, k, n) in [
        (64, 512, 1024),
        (64, 1024, 256),
        (1, 512, 1024),
        (1, 1024, 256),
        (32, 128, 128),
        (512, 512, 512),
    ] {
        let a = matrix(m, k);
        let b = matrix(k, n);
        emit(format!("matmul/{m}x{k}@{k}x{n}"), &mut || {
            black_box(ops::matmul(black_box(&a), black_box(&b)).unwrap());
        });
    }
}
