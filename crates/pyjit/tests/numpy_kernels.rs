//! Numba-style kernels in NumPy spelling (`tests/numpy_kernels/FUNCTION.py`): unannotated
//! parameters take the types of the call's arguments (an `int`, a `float`, a `bool`, an array),
//! one compilation per argument-type signature. Each call listed in `expected.txt` (written by
//! `gen.py` there with real NumPy) runs in script mode on the interpreter and on native code;
//! the result's type (Python int/float or the array's dtype and shape) must match exactly, the
//! values within float rounding.

use pyjit::run::{Mode, RunOutcome, RunRequest, run};
use pyjit::{Backend, SourceFile, Value};
use pyjit_runtime::{DType, Tensor};
use std::path::PathBuf;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/numpy_kernels")
}

/// (dtype name, shape, values) of a result.
fn describe(v: &Value) -> Option<(String, Vec<usize>, Vec<f64>)> {
    Some(match v {
        Value::Int(i) => ("int".into(), vec![], vec![*i as f64]),
        Value::Float(x) => ("float".into(), vec![], vec![*x]),
        Value::Tensor(t) => {
            let vals = match t.dtype() {
                DType::Bool => t.to_vec::<bool>().into_iter().map(f64::from).collect(),
                DType::Int64 => t.to_vec::<i64>().into_iter().map(|v| v as f64).collect(),
                DType::Int32 => t.to_vec::<i32>().into_iter().map(f64::from).collect(),
                DType::Float32 => t.to_vec::<f32>().into_iter().map(f64::from).collect(),
                DType::Float64 => t.to_vec::<f64>(),
            };
            (t.dtype().name().to_string(), t.shape().to_vec(), vals)
        }
        _ => return None,
    })
}

#[test]
fn numba_style_kernels_match_numpy() {
    let tmp = std::env::temp_dir().join(format!("pyjit-npkern-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let a = Tensor::from_vec(vec![1.5f32, -2.0, 3.0, 0.25, -0.5], &[5]).unwrap();
    let m = Tensor::from_vec(vec![1.0f32, 2.0, 4.0, 3.0, 5.0, 9.0], &[2, 3]).unwrap();
    pyjit_runtime::npy::write_npy(tmp.join("a.npy"), &a).unwrap();
    pyjit_runtime::npy::write_npy(tmp.join("m.npy"), &m).unwrap();
    let expected = std::fs::read_to_string(dir().join("expected.txt")).unwrap();
    let mut failures = Vec::new();
    let mut checked = 0;
    for line in expected.lines().filter(|l| !l.trim().is_empty()) {
        let f: Vec<&str> = line.split('|').collect();
        assert_eq!(f.len(), 5, "bad line in expected.txt: {line}");
        let shape: Vec<usize> = match f[3] {
            "-" => vec![],
            s => s.split(',').map(|d| d.parse().unwrap()).collect(),
        };
        let values: Vec<f64> = f[4]
            .split_whitespace()
            .map(|v| v.parse().unwrap())
            .collect();
        for backend in [Backend::Interp, Backend::Native] {
            let req = RunRequest {
                function: Some(f[0].to_string()),
                args: f[1].split_whitespace().map(String::from).collect(),
                base_dir: tmp.clone(),
                mode: Mode::Script,
                backend,
                ..RunRequest::default()
            };
            let what = format!("{}({}) on {backend:?}", f[0], f[1]);
            let file = format!("{}.py", f[0]);
            let text = std::fs::read_to_string(dir().join(&file)).unwrap();
            let src = SourceFile::new(file, text);
            let got = match run(src, &req, &mut std::io::sink()) {
                RunOutcome::Ok { value, .. } => describe(&value),
                RunOutcome::CompileError(d) => {
                    failures.push(format!("{what}: compile error {d:?}"));
                    continue;
                }
                RunOutcome::RunError(e) => {
                    failures.push(format!("{what}: run error {}", e.error.message));
                    continue;
                }
                RunOutcome::Usage(u) => {
                    failures.push(format!("{what}: usage error {u}"));
                    continue;
                }
            };
            checked += 1;
            let Some((dtype, gshape, gvals)) = got else {
                failures.push(format!("{what}: returned neither a number nor an array"));
                continue;
            };
            let close = gvals.len() == values.len()
                && gvals
                    .iter()
                    .zip(&values)
                    .all(|(g, e)| (g - e).abs() <= 1e-6 * e.abs().max(1.0));
            if dtype != f[2] || gshape != shape || !close {
                failures.push(format!(
                    "{what}: got {dtype} {gshape:?} {gvals:?}, NumPy gives {} {shape:?} {values:?}",
                    f[2]
                ));
            }
        }
    }
    assert!(
        checked >= 20 || !failures.is_empty(),
        "only {checked} calls ran"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The called function keeps the types of the call that compiles it: `f(3, k - 1)` inside `f`,
/// called with an array for `x`, is an error at that call, not a reason to retype `x` as an int
/// (which would only fail later, when the array is passed).
#[test]
fn the_called_function_keeps_the_callers_types() {
    let src = "import numpy as np\n\n\ndef f(x, k):\n    if k == 0:\n        return x\n    return f(3, k - 1)\n";
    let x = Tensor::from_vec(vec![1.5f32, -2.0], &[2]).unwrap();
    let r = pyjit::Program::compile_for_call(
        SourceFile::new("rec.py", src),
        pyjit::Options::default(),
        Some("f"),
        &[Value::Tensor(x), Value::Int(2)],
    );
    let errors = match r {
        Ok(_) => panic!("f(3, k - 1) with an array `x` compiled"),
        Err(d) => d,
    };
    assert!(
        errors
            .iter()
            .any(|d| d.message == "argument `x` of `f` must be `Tensor`, found `int`"),
        "{errors:?}"
    );
}

/// A call of one function of a NumPy-style file compiles even when another function, which the
/// call never reaches, does not type-check with its unannotated parameters as `Tensor`s (as the
/// Python package, which compiles only the function and what it uses, already did); an error in
/// the called function, or in a function it calls, is still reported.
#[test]
fn errors_in_functions_the_call_never_reaches_are_not_the_calls() {
    let src = "import numpy as np\n\n\ndef mk(n):\n    return np.zeros((n, n), dtype=np.int32)\n\n\ndef addone(x):\n    return x + np.float32(1.0)\n\n\ndef uses(x):\n    return mk(x) + 1\n\n\ndef bad(x):\n    return undefined_thing(x)\n";
    let x = || Value::Tensor(Tensor::from_vec(vec![1.5f32, -2.0], &[2]).unwrap());
    let compile = |name: &str, args: &[Value]| {
        pyjit::Program::compile_for_call(
            SourceFile::new("module.py", src),
            pyjit::Options::default(),
            Some(name),
            args,
        )
    };
    let p = compile("addone", &[x()]).expect("addone does not reach mk");
    let r = p.call("addone", vec![x()]).unwrap();
    let Value::Tensor(t) = r else { panic!("{r:?}") };
    assert_eq!(t.to_vec::<f32>(), vec![2.5, -1.0]);
    assert!(compile("mk", &[Value::Int(3)]).is_ok());
    let messages = |r: Result<pyjit::Program, Vec<pyjit::Diagnostic>>| match r {
        Ok(_) => panic!("compiled"),
        Err(d) => d.into_iter().map(|d| d.message).collect::<Vec<_>>(),
    };
    // `uses` passes its array to `mk`: mk's error is the call's.
    let m = messages(compile("uses", &[x()]));
    assert!(m.iter().any(|s| s.contains("np.zeros")), "{m:?}");
    // An error in the called function keeps every error of the module.
    let m = messages(compile("bad", &[x()]));
    assert!(m.iter().any(|s| s.contains("undefined_thing")), "{m:?}");
    assert!(m.iter().any(|s| s.contains("np.zeros")), "{m:?}");
}
