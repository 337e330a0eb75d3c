//! Loop-carried `float32` scalars of NumPy-style kernels (a running maximum, an `np.float32`
//! accumulator) travel in `f32` registers in native code (`pyjit-codegen`'s `f32_carried`); a
//! carried value that ever receives a `float64` value must not. Each kernel here runs on the
//! interpreter and on native code, on inputs with NaN, infinities, signed zeros, subnormals and
//! values whose `float64` and `float32` sums differ, and the results must be identical to the bit.

use pyjit::run::{Mode, RunOutcome, RunRequest, run};
use pyjit::{Backend, SourceFile, Value};
use pyjit_runtime::{DType, Tensor};

const KERNELS: &str = r#"
import numpy as np


def f32_sum(a):
    s = np.float32(0.0)
    for i in range(a.shape[0]):
        s += a[i]
    return float(s)


def f32_sum_tensor(a):
    # The loop's result is returned as a 0-d array: the accumulator stays an array.
    s = np.float32(0.0)
    for i in range(a.shape[0]):
        s += a[i]
    return s


def f64_sum_of_f32(a):
    # A float64 accumulator: every `+` is a float64 add, so `s` is not a float32 value.
    s = np.float64(0.0)
    for i in range(a.shape[0]):
        s += a[i]
    return float(s)


def mixed_carry(a):
    # float32 on one path, float64 on the other: the carried value is float64.
    s = np.float32(0.0)
    for i in range(a.shape[0]):
        if a[i] > 0:
            s = a[i] * np.float32(2.0)
        else:
            s = s + np.float64(0.1)
    return float(s)


def running_max(a):
    m = a[0]
    for i in range(1, a.shape[0]):
        if a[i] > m:
            m = a[i]
    return float(m)


def max_while(a):
    m = np.float32(-1e38)
    i = 0
    while i < a.shape[0] and m < np.float32(1e30):
        if a[i] > m:
            m = a[i]
        i += 1
    return float(m)


def store_in_branch(a):
    # An `if` that is not computed speculatively (it stores), whose float32 result flows on.
    out = np.zeros_like(a)
    last = np.float32(-1.0)
    for i in range(a.shape[0]):
        if a[i] < last:
            out[i] = a[i]
            last = a[i] * np.float32(0.5)
        else:
            last = a[i] - np.float32(1.0)
        out[i] += last
    return out


def nested_rows(m):
    total = np.float32(0.0)
    for r in range(m.shape[0]):
        row = np.float32(0.0)
        for c in range(m.shape[1]):
            row += m[r, c] * m[r, c]
        total += np.sqrt(row)
    return float(total)


def widened_use(a):
    # The float32 accumulator is also used as a float64 each iteration.
    s = np.float32(0.0)
    w = np.float64(0.0)
    for i in range(a.shape[0]):
        s += a[i]
        w += float(s) * 0.5
    return w + float(s)
"#;

fn bits(v: &Value) -> String {
    match v {
        Value::Float(x) => format!("float {:#x}", x.to_bits()),
        Value::Int(i) => format!("int {i}"),
        Value::Bool(b) => format!("bool {b}"),
        Value::Tensor(t) => {
            let vals: Vec<String> = match t.dtype() {
                DType::Float32 => t
                    .to_vec::<f32>()
                    .iter()
                    .map(|x| format!("{:#x}", x.to_bits()))
                    .collect(),
                DType::Float64 => t
                    .to_vec::<f64>()
                    .iter()
                    .map(|x| format!("{:#x}", x.to_bits()))
                    .collect(),
                _ => vec![format!("{t:?}")],
            };
            format!("{} {:?} {}", t.dtype().name(), t.shape(), vals.join(" "))
        }
        other => format!("{other:?}"),
    }
}

#[test]
fn f32_carried_scalars_match_the_interpreter_bit_for_bit() {
    let tmp = std::env::temp_dir().join(format!("pyjit-f32reg-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let tiny = f32::from_bits(1); // the smallest subnormal
    let vectors: Vec<(&str, Vec<f32>)> = vec![
        ("plain", vec![1.5, -2.0, 3.0, 0.25, -0.5, 7.0]),
        // float32 and float64 sums differ: 1e8 + 1 + 1 ... rounds away in float32.
        (
            "rounding",
            vec![1e8, 1.0, 1.0, 1.0, 1.0, -1e8, 0.1, 0.2, 0.3],
        ),
        ("nan", vec![1.0, f32::NAN, 3.0, -4.0]),
        ("nan_first", vec![f32::NAN, 1.0, 5.0, 2.0]),
        ("inf", vec![f32::NEG_INFINITY, 2.0, f32::INFINITY, -1.0]),
        ("zeros", vec![-0.0, 0.0, -0.0, tiny, -tiny]),
        (
            "subnormal",
            vec![tiny, tiny, f32::MIN_POSITIVE, -tiny, 3.0 * tiny],
        ),
        ("huge", vec![3e38, 3e38, -3e38, 1.0]),
    ];
    let m = Tensor::from_vec(
        vec![1.0f32, -2.5, 4.0, 1e-20, 3e19, -0.0, f32::NAN, 2.0, 0.5],
        &[3, 3],
    )
    .unwrap();
    pyjit_runtime::npy::write_npy(tmp.join("m.npy"), &m).unwrap();
    let mut calls: Vec<(&str, Vec<String>)> = vec![("nested_rows", vec!["m.npy".into()])];
    for (name, v) in &vectors {
        let t = Tensor::from_vec(v.clone(), &[v.len()]).unwrap();
        let file = format!("{name}.npy");
        pyjit_runtime::npy::write_npy(tmp.join(&file), &t).unwrap();
        for f in [
            "f32_sum",
            "f32_sum_tensor",
            "f64_sum_of_f32",
            "mixed_carry",
            "running_max",
            "store_in_branch",
            "widened_use",
        ] {
            calls.push((f, vec![file.clone()]));
        }
        calls.push(("max_while", vec![file.clone()]));
    }
    let mut failures = Vec::new();
    for (f, args) in &calls {
        let mut got = Vec::new();
        for backend in [Backend::Interp, Backend::Native] {
            let req = RunRequest {
                function: Some(f.to_string()),
                args: args.clone(),
                base_dir: tmp.clone(),
                mode: Mode::Script,
                backend,
                ..RunRequest::default()
            };
            let src = SourceFile::new("kernels.py", KERNELS);
            got.push(match run(src, &req, &mut std::io::sink()) {
                RunOutcome::Ok { value, .. } => bits(&value),
                RunOutcome::CompileError(d) => format!("compile error {d:?}"),
                RunOutcome::RunError(e) => format!("run error {}", e.error.message),
                RunOutcome::Usage(u) => format!("usage error {u}"),
            });
        }
        if got[0] != got[1] || !got[0].starts_with(['f', 'i']) {
            failures.push(format!(
                "{f}({}): interp {} / native {}",
                args.join(" "),
                got[0],
                got[1]
            ));
        }
    }
    std::fs::remove_dir_all(&tmp).ok();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
