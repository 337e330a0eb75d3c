//! Measures where splitting elementwise kernels and sums across the pool starts to pay: for each
//! size from 2^12 to 2^20 f32 elements, the median time per call on 1 thread and on
//! `PYJIT_NUM_THREADS` (default 2) threads, as JSON lines `{"case", "n", "t1_ns", "tn_ns"}`
//! (docs/kernels.md, "Threads"). The kernels split only above `vmath::PAR_MIN`, so this example
//! splits them itself, through the runtime's fork/join (`pyjit_runtime::par`), whatever the size.
//!
//! `cargo run --release -p pyjit-runtime --example par_threshold`

mod common;

use std::hint::black_box;
use std::time::Duration;

use pyjit_runtime::ops::vmath::{self, PAR_CHUNK, k};
use pyjit_runtime::par;

/// One kernel: `(out, parallel)`.
type Case<'a> = dyn FnMut(&mut [f32], bool) + 'a;

fn time(f: impl FnMut()) -> f64 {
    common::median_ns(f, 2e6, Duration::from_millis(150), 7)
}

/// Elements per task here (smaller than the kernels' `PAR_CHUNK`, so small sizes split too).
const C: usize = PAR_CHUNK / 8;

/// `vmath::map` over fixed chunks (each below `PAR_MIN`, so each runs on one thread), on the
/// caller alone or through the runtime's fork/join, whatever the size.
fn chunked_map<K: vmath::Unary<f32>>(k: K, x: &[f32], out: &mut [f32], par: bool) {
    if par {
        par::for_each_chunk_mut(out, C, |i, o| vmath::map(k, &x[i * C..][..o.len()], o));
    } else {
        for (o, i) in out.chunks_mut(C).zip(x.chunks(C)) {
            vmath::map(k, i, o);
        }
    }
}

fn main() {
    let threads: usize = std::env::var("PYJIT_NUM_THREADS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2);
    vmath::set_num_threads(threads);
    for shift in 12..=20 {
        let n = 1usize << shift;
        let x: Vec<f32> = (0..n).map(|i| (i % 1000) as f32 / 100.0 - 5.0).collect();
        let y = x.clone();
        let mut out = vec![0f32; n];
        let cases: [(&str, &mut Case); 3] = [
            ("exp", &mut |o, par| chunked_map(k::Exp, &x, o, par)),
            ("tanh", &mut |o, par| chunked_map(k::Tanh, &x, o, par)),
            ("add", &mut |o, par| {
                let add = vmath::arith::Zip(vmath::arith::Add);
                if par {
                    par::for_each_chunk_mut(o, C, |i, o| {
                        vmath::zip(add, &x[i * C..][..o.len()], &y[i * C..][..o.len()], o)
                    })
                } else {
                    for ((o, a), b) in o.chunks_mut(C).zip(x.chunks(C)).zip(y.chunks(C)) {
                        vmath::zip(add, a, b, o);
                    }
                }
            }),
        ];
        for (name, f) in cases {
            let t1 = time(|| f(black_box(&mut out), false));
            let tn = time(|| f(black_box(&mut out), true));
            println!(
                "{{\"case\": \"{name}\", \"n\": {n}, \"t1_ns\": {t1:.0}, \"tn_ns\": {tn:.0}}}"
            );
        }
        let s1 = time(|| {
            black_box(x.chunks(C).map(vmath::sum_f32).sum::<f64>());
        });
        let sn = time(|| {
            black_box(
                par::map_collect(x.len().div_ceil(C), |i| {
                    vmath::sum_f32(&x[i * C..((i + 1) * C).min(x.len())])
                })
                .iter()
                .sum::<f64>(),
            );
        });
        println!("{{\"case\": \"sum\", \"n\": {n}, \"t1_ns\": {s1:.0}, \"tn_ns\": {sn:.0}}}");
    }
}
