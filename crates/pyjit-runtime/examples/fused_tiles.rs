//! Times a fused elementwise chain (`tanh(x * 2 + y) * sigmoid(y) - 0.5 * x`, 4M float32)
//! against the same steps unfused, for several tile sizes:
//! `cargo run --release -p pyjit-runtime --example fused_tiles`.

use pyjit_runtime::ops::fused::{example_chain, run_unfused, run_with_tile};
use pyjit_runtime::{DType, Tensor, Value};
use std::time::{Duration, Instant};

fn main() {
    let chain = example_chain();
    let n = 4_000_000;
    let ramp = |k: usize| -> Tensor {
        let v: Vec<f32> = (0..n)
            .map(|i| ((i * k % 1000) as f32 - 500.0) / 300.0)
            .collect();
        Tensor::from_vec(v, &[n]).unwrap()
    };
    let inputs = [Value::Tensor(ramp(7)), Value::Tensor(ramp(13))];
    assert_eq!(inputs[0].as_tensor().unwrap().dtype(), DType::Float32);
    let best = |f: &dyn Fn()| -> Duration {
        f();
        (0..15)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed()
            })
            .min()
            .unwrap_or_default()
    };
    let unfused = best(&|| {
        run_unfused(&chain, &inputs).unwrap();
    });
    println!("unfused            {unfused:>10.2?}");
    for tile in [1 << 12, 1 << 13, 1 << 14, 1 << 15, 1 << 16, 1 << 17] {
        let t = best(&|| {
            run_with_tile(&chain, &inputs, tile).unwrap();
        });
        println!(
            "fused tile {tile:>7} {t:>10.2?}  ({:.2}x unfused)",
            t.as_secs_f64() / unfused.as_secs_f64()
        );
    }
}
