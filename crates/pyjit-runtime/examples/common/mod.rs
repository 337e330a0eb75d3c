//! What the measuring examples share.

use std::time::{Duration, Instant};

/// The median time per call of `f`, in nanoseconds: one warm-up call sizes batches of about
/// `batch_ns` each, run for at least `total` and `min_batches` batches.
pub fn median_ns(mut f: impl FnMut(), batch_ns: f64, total: Duration, min_batches: usize) -> f64 {
    let t0 = Instant::now();
    f();
    let once = t0.elapsed().max(Duration::from_nanos(50));
    let batch = ((batch_ns / once.as_nanos() as f64) as usize).clamp(1, 100_000);
    let mut samples = Vec::new();
    let start = Instant::now();
    while start.elapsed() < total || samples.len() < min_batches {
        let t = Instant::now();
        for _ in 0..batch {
            f();
        }
        samples.push(t.elapsed().as_nanos() as f64 / batch as f64);
    }
    samples.sort_by(|a, b| a.total_cmp(b));
    samples[samples.len() / 2]
}
