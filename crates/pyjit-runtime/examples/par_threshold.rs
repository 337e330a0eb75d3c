//! Measures where splitting elementwise kernels and sums across the pool starts to pay: for each
//! size from 2^12 to 2^20 f32 elements, the median time per call on 1 thread and on
//! `PYJIT_NUM_THREADS` (default 2) threads, as JSON lines `{"case", "n", "t1_ns", "tn_ns"}`
//! (docs/kernels.md, "Threads"). The kernels split only above `vmath::PAR_MIN`, so this example
//! calls the chunked entry points directly with a pool of each size.
//!
//! `cargo run --release -p pyjit-runtime --example par_threshold`

mod common;

use std::hint::black_box;
use std::time::Duration;

use pyjit_runtime::ops::vmath::{self, PAR_CHUNK, k};
use rayon::prelude::*;

/// One kernel: `(out, parallel)`.
type Case<'a> = dyn FnMut(&mut [f32], bool) + 'a;

fn time(f: impl FnMut()) -> f64 {
    common::median_ns(f, 2e6, Duration::from_millis(150), 7)
}

/// The parallel form of `vmath::map` (fixed chunks on the pool), whatever the size.
fn par_map<K: vmath::Unary<f32>>(k: K, x: &[f32], out: &mut [f32]) {
    vmath::pool().install(|| {
        out.par_chunks_mut(PAR_CHUNK / 8)
            .zip(x.par_chunks(PAR_CHUNK / 8))
            .for_each(|(o, i)| vmath::map(k, i, o))
    });
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
            ("exp", &mut |o, par| {
                if par {
                    par_map(k::Exp, &x, o)
                } else {
                    vmath::map(k::Exp, &x, o)
                }
            }),
            ("tanh", &mut |o, par| {
                if par {
                    par_map(k::Tanh, &x, o)
                } else {
                    vmath::map(k::Tanh, &x, o)
                }
            }),
            ("add", &mut |o, par| {
                let add = vmath::arith::Zip(vmath::arith::Add);
                if par {
                    vmath::pool().install(|| {
                        o.par_chunks_mut(PAR_CHUNK / 8)
                            .zip(x.par_chunks(PAR_CHUNK / 8).zip(y.par_chunks(PAR_CHUNK / 8)))
                            .for_each(|(o, (a, b))| vmath::zip(add, a, b, o))
                    })
                } else {
                    vmath::zip(add, &x, &y, o)
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
            black_box(x.chunks(PAR_CHUNK / 8).map(vmath::sum_f32).sum::<f64>());
        });
        let sn = time(|| {
            black_box(
                vmath::pool()
                    .install(|| x.par_chunks(PAR_CHUNK / 8).map(vmath::sum_f32).sum::<f64>()),
            );
        });
        println!("{{\"case\": \"sum\", \"n\": {n}, \"t1_ns\": {s1:.0}, \"tn_ns\": {sn:.0}}}");
    }
}
