//! NumPy's integer subscripts: `x[i, …]` with one int per dim gives a NumPy scalar (a copy,
//! `np_element` in the IR), with fewer ints than dims a view; in TorchScript both are views.
//! Each program runs in script mode on the interpreter and on native code, at -O0 and -O2 (where
//! `tensor-access` and `scalarize` turn the subscripts into loads), traced, and eagerly. The expected values were
//! worked out by hand from NumPy's (and PyTorch's) semantics, so no Python is needed here.

use pyjit::opt::manager::{OptLevel, PipelineConfig};
use pyjit::run::{Mode, RunOutcome, RunRequest, run};
use pyjit::{Backend, SourceFile, Value};
use pyjit_runtime::{DType, Tensor};

/// Runs `function` of `src` on the `.npy` arguments `args` (file names in `dir`) everywhere and
/// checks that the result is a float32 tensor of `shape` holding `want`.
fn check(src: &str, function: &str, args: &[&str], shape: &[usize], want: &[f32]) {
    // One directory per call: the tests run in parallel and each writes its inputs.
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let k = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("pyjit-npelem-{}-{k}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let x = Tensor::from_vec(vec![0.5f32, 1.5, 2.5, 3.5], &[4]).unwrap();
    let m = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]).unwrap();
    pyjit_runtime::npy::write_npy(dir.join("x.npy"), &x).unwrap();
    pyjit_runtime::npy::write_npy(dir.join("m.npy"), &m).unwrap();
    // Script mode on both backends at both levels; the tracer (traced, then run natively) and
    // the eager evaluator follow the same NumPy rule.
    let runs = [Backend::Interp, Backend::Native]
        .into_iter()
        .flat_map(|b| [OptLevel::O0, OptLevel::O2].map(|l| (Mode::Script, b, l)))
        .chain([
            (Mode::Trace, Backend::Native, OptLevel::O2),
            (Mode::Eager, Backend::Interp, OptLevel::O2),
        ]);
    for (mode, backend, level) in runs {
        {
            let req = RunRequest {
                function: Some(function.to_string()),
                args: args.iter().map(|a| a.to_string()).collect(),
                base_dir: dir.clone(),
                mode,
                backend,
                opt: PipelineConfig::for_level(level),
            };
            let what = format!("{function} {mode:?} on {backend:?} at {level:?}");
            let src = SourceFile::new("t.py".to_string(), src.to_string());
            match run(src, &req, &mut std::io::sink()) {
                RunOutcome::Ok {
                    value: Value::Tensor(t),
                    ..
                } => {
                    assert_eq!(t.dtype(), DType::Float32, "{what}");
                    assert_eq!(t.shape(), shape, "{what}");
                    assert_eq!(t.to_vec::<f32>(), want, "{what}");
                }
                RunOutcome::Ok { value, .. } => panic!("{what}: not a tensor: {value:?}"),
                RunOutcome::CompileError(d) => panic!("{what}: compile error {d:?}"),
                RunOutcome::RunError(e) => panic!("{what}: run error {}", e.error.message),
                RunOutcome::Usage(u) => panic!("{what}: usage error {u}"),
            }
        }
    }
}

/// The element is a copy: writing `x[0]` afterwards does not change `m` (NumPy gives 0.5).
#[test]
fn element_subscript_is_a_copy() {
    let src = "import numpy as np\n\n\ndef f(x):\n    m = x[0]\n    x[0] = np.float32(5.0)\n    return m + np.float32(0.0)\n";
    check(src, "f", &["x.npy"], &[], &[0.5]);
}

/// `m += 1` updates the copy, not `x`: `x[1] + m` is 1.5 + 2.5.
#[test]
fn inplace_update_of_element_leaves_array() {
    let src = "import numpy as np\n\n\ndef f(x):\n    m = x[1]\n    m += np.float32(1.0)\n    return x[1] + m\n";
    check(src, "f", &["x.npy"], &[], &[4.0]);
}

/// Iterating a 1-D array gives its elements as copies: `s` adds 0.5, 1.5, 2.5, 3.5.
#[test]
fn iteration_elements_are_copies() {
    let src = "import numpy as np\n\n\ndef f(x):\n    s = np.float32(0.0)\n    for v in x:\n        x[0] = np.float32(100.0)\n        s += v\n    return s\n";
    check(src, "f", &["x.npy"], &[], &[8.0]);
}

/// In a loop kernel (scalarized at -O2), each element is read before the store overwrites it.
#[test]
fn element_read_before_store_in_a_loop() {
    let src = "import numpy as np\n\n\ndef f(x):\n    out = np.empty_like(x)\n    for i in range(x.shape[0]):\n        m = x[i]\n        x[i] = np.float32(0.0)\n        out[i] = m * np.float32(2.0)\n    return out\n";
    check(src, "f", &["x.npy"], &[4], &[1.0, 3.0, 5.0, 7.0]);
}

/// Fewer ints than dims: a row view, which sees the later write.
#[test]
fn partial_subscript_stays_a_view() {
    let src = "import numpy as np\n\n\ndef f(m):\n    r = m[0]\n    m[0, 1] = np.float32(7.0)\n    return r * np.float32(1.0)\n";
    check(src, "f", &["m.npy"], &[3], &[1.0, 7.0, 3.0]);
}

/// `m[i, j] += 1.0` on an element still writes the array.
#[test]
fn augmented_element_assignment_writes_the_array() {
    let src = "import numpy as np\n\n\ndef f(m):\n    m[1, 2] += 1.0\n    m[0, 0] += np.float32(0.5)\n    return m\n";
    check(
        src,
        "f",
        &["m.npy"],
        &[2, 3],
        &[1.5, 2.0, 3.0, 4.0, 5.0, 7.0],
    );
}

/// TorchScript keeps PyTorch's semantics: `x[0]` is a view and sees the write.
#[test]
fn torchscript_element_subscript_stays_a_view() {
    let src = "import torch\n\n\ndef f(x: torch.Tensor) -> torch.Tensor:\n    m = x[0]\n    x[0] = 5.0\n    return m + 0.0\n";
    check(src, "f", &["x.npy"], &[], &[5.0]);
}
