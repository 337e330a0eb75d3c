//! Times a fused elementwise chain (`tanh(x * 2 + y) * sigmoid(y) - 0.5 * x`, 4M float32)
//! against the same steps unfused, for several tile sizes:
//! `cargo run --release -p pyjit-runtime --example fused_tiles`.

use pyjit_runtime::ops::fused::{Operand, Program, Step, run_unfused, run_with_tile};
use pyjit_runtime::{DType, Tensor, Value, schema};
use std::time::{Duration, Instant};

fn op(name: &str) -> schema::OpId {
    schema::lookup(name).unwrap_or_else(|| panic!("no op {name}"))
}

fn main() {
    let one = Operand::Const(Value::Int(1));
    let step = |name: &str, args: Vec<Operand>| Step { op: op(name), args };
    let chain = Program {
        inputs: 2,
        steps: vec![
            step(
                "mul.Scalar",
                vec![Operand::Input(0), Operand::Const(Value::Float(2.0))],
            ),
            step(
                "add.Tensor",
                vec![Operand::Step(0), Operand::Input(1), one.clone()],
            ),
            step("tanh", vec![Operand::Step(1)]),
            step("sigmoid", vec![Operand::Input(1)]),
            step("mul.Tensor", vec![Operand::Step(2), Operand::Step(3)]),
            step(
                "mul.Scalar",
                vec![Operand::Input(0), Operand::Const(Value::Float(0.5))],
            ),
            step("sub.Tensor", vec![Operand::Step(4), Operand::Step(5), one]),
        ],
    };
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
