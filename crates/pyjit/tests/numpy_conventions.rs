//! The NumPy conventions (`np.var`/`np.std` ddof, `np.arange` with floats, `np.full` with a
//! bool, creation dtypes) and PyTorch's Python-level defaults (`torch.norm(x, dim=1)`) live once
//! in `pyjit_runtime::numpy`; this test runs every function of `tests/numpy_conventions/*.py` in
//! every mode and backend (script and trace on the interpreter and native code, eager) and
//! checks each against what real NumPy / PyTorch returned (`expected.txt`, written by `gen.py`
//! there): dtype and shape exactly, values within float rounding.

use pyjit::run::{Mode, RunOutcome, RunRequest, run};
use pyjit::{Backend, SourceFile, Value};
use pyjit_runtime::{DType, Tensor};
use std::path::PathBuf;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/numpy_conventions")
}

struct Expected {
    file: String,
    func: String,
    dtype: DType,
    shape: Vec<usize>,
    values: Vec<f64>,
}

fn expected() -> Vec<Expected> {
    let text = std::fs::read_to_string(dir().join("expected.txt")).expect("expected.txt");
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            let dtype = match w[2] {
                "float64" => DType::Float64,
                "float32" => DType::Float32,
                "int64" => DType::Int64,
                "bool" => DType::Bool,
                other => panic!("unknown dtype {other} in expected.txt"),
            };
            let shape = match w[3] {
                "-" => vec![],
                s => s.split(',').map(|d| d.parse().expect("shape")).collect(),
            };
            Expected {
                file: w[0].to_string(),
                func: w[1].to_string(),
                dtype,
                shape,
                values: w[4..].iter().map(|v| v.parse().expect("value")).collect(),
            }
        })
        .collect()
}

fn values_of(t: &Tensor) -> Vec<f64> {
    match t.dtype() {
        DType::Bool => t.to_vec::<bool>().into_iter().map(f64::from).collect(),
        DType::Int64 => t.to_vec::<i64>().into_iter().map(|v| v as f64).collect(),
        DType::Int32 => t.to_vec::<i32>().into_iter().map(f64::from).collect(),
        DType::Float32 => t.to_vec::<f32>().into_iter().map(f64::from).collect(),
        DType::Float64 => t.to_vec::<f64>(),
    }
}

#[test]
fn numpy_conventions_agree_across_modes_and_with_numpy() {
    let tmp = std::env::temp_dir().join(format!("pyjit-npconv-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let input = [1.0, 2.0, 4.0, 3.0, 5.0, 9.0];
    let f64_in = Tensor::from_vec(input.to_vec(), &[2, 3]).unwrap();
    let f32_in = Tensor::from_vec(input.iter().map(|&v| v as f32).collect(), &[2, 3]).unwrap();
    pyjit_runtime::npy::write_npy(tmp.join("numpy_style.npy"), &f64_in).unwrap();
    pyjit_runtime::npy::write_npy(tmp.join("torch_style.npy"), &f32_in).unwrap();
    let modes = [
        (Mode::Script, Backend::Interp),
        (Mode::Script, Backend::Native),
        (Mode::Trace, Backend::Interp),
        (Mode::Trace, Backend::Native),
        (Mode::Eager, Backend::Interp),
    ];
    let cases = expected();
    assert!(
        cases.len() >= 20,
        "expected.txt lists {} cases",
        cases.len()
    );
    let mut failures = Vec::new();
    for c in &cases {
        let path = dir().join(format!("{}.py", c.file));
        let text = std::fs::read_to_string(&path).unwrap();
        for (mode, backend) in modes {
            let req = RunRequest {
                function: Some(c.func.clone()),
                args: vec![format!("{}.npy", c.file)],
                base_dir: tmp.clone(),
                mode,
                backend,
                ..RunRequest::default()
            };
            let src = SourceFile::new(format!("{}.py", c.file), text.clone());
            let what = format!("{}::{} ({}, {backend:?})", c.file, c.func, mode.name());
            let t = match run(src, &req, &mut std::io::sink()) {
                RunOutcome::Ok {
                    value: Value::Tensor(t),
                    ..
                } => t,
                RunOutcome::Ok { value, .. } => {
                    failures.push(format!("{what}: returned {value:?}, not a tensor"));
                    continue;
                }
                RunOutcome::CompileError(d) => {
                    failures.push(format!("{what}: compile error {d:?}"));
                    continue;
                }
                RunOutcome::RunError(e) => {
                    failures.push(format!(
                        "{what}: run error {:?}: {}",
                        e.error.kind, e.error.message
                    ));
                    continue;
                }
                RunOutcome::Usage(u) => {
                    failures.push(format!("{what}: {u}"));
                    continue;
                }
            };
            if t.dtype() != c.dtype || t.shape() != c.shape.as_slice() {
                failures.push(format!(
                    "{what}: {:?} {:?}, NumPy/PyTorch gave {:?} {:?}",
                    t.dtype(),
                    t.shape(),
                    c.dtype,
                    c.shape
                ));
                continue;
            }
            let got = values_of(&t);
            let rtol = if c.dtype == DType::Float32 {
                1e-6
            } else {
                1e-12
            };
            let close = got.len() == c.values.len()
                && got
                    .iter()
                    .zip(&c.values)
                    .all(|(a, b)| (a - b).abs() <= rtol * b.abs().max(1.0));
            if !close {
                failures.push(format!("{what}: {got:?}, expected {:?}", c.values));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
