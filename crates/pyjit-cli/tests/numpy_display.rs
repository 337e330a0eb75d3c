//! `pyjit run` / `pyjit trace` show the results of NumPy-style programs as NumPy shows them
//! (`array([...], dtype=float32)`, `np.float64(-1.25)`), in every mode and backend; a
//! torch-style program's results stay PyTorch's `tensor(...)`.

mod common;

use common::{pyjit, scratch_dir};

const STATS: &str = "import numpy as np


def stats(k):
    a = np.array([[0.25, 1.0], [0.5, -3.0]])
    b = np.linspace(0.0, 1.0, k)
    c = (a * 3.3).astype(np.float32)
    return a.sum(), b, c, np.arange(k) * 2, a > 0.4, c.dtype
";

/// `repr(stats(4))` as Python 3.11 with NumPy 2.4.6 printed it.
const STATS_4: &str = "(np.float64(-1.25), array([0.        , 0.33333333, 0.66666667, 1.        ]), array([[ 0.825,  3.3  ],
       [ 1.65 , -9.9  ]], dtype=float32), array([0, 2, 4, 6]), array([[False,  True],
       [ True, False]]), dtype('float32'))
";

/// `pyjit run FILE 4` on native code, on the interpreter, traced and eagerly: each must print
/// `expected`.
fn run_in_every_mode(dir: &std::path::Path, file: &str, expected: &str) {
    for extra in [
        &["--backend", "native"][..],
        &["--backend", "interp"],
        &["--mode", "trace"],
        &["--mode", "eager"],
    ] {
        let mut args = vec!["run", file, "4"];
        args.extend_from_slice(extra);
        let (code, out, err) = pyjit(dir, &args);
        assert_eq!(code, Some(0), "{extra:?}: {err}");
        assert_eq!(out, expected, "{extra:?}");
    }
}

#[test]
fn numpy_style_results_print_as_numpy_in_every_mode() {
    let dir = scratch_dir("numpy_display", "stats");
    std::fs::write(dir.join("stats.py"), STATS).unwrap();
    run_in_every_mode(&dir, "stats.py", STATS_4);
    // `pyjit trace` prints the graph first; the result is the last lines.
    let (code, out, err) = pyjit(&dir, &["trace", "stats.py", "4"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.ends_with(STATS_4), "{out}");
}

#[test]
fn torch_style_results_keep_pytorch_repr() {
    let dir = scratch_dir("numpy_display", "torch");
    let src =
        "import torch\nimport numpy as np\n\n\ndef f(k: int):\n    return torch.arange(k) * 0.5\n";
    std::fs::write(dir.join("t.py"), src).unwrap();
    let (code, out, err) = pyjit(&dir, &["run", "t.py", "3"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(out, "tensor([0.0000, 0.5000, 1.0000])\n");
}

const SHOW: &str = "import numpy as np


def show(k):
    a = np.linspace(0.0, 1.0, k)
    c = (a * 3.3).astype(np.float32)
    print(a)
    print(\"sum\", a.sum(), c.dtype, k)
    print(f\"c={c} pair={(c, k)} first={a[1]}\")
    return k
";

/// What `show(4)` printed under Python 3.11 with NumPy 2.4.6, and its result.
const SHOW_4: &str = "[0.         0.33333333 0.66666667 1.        ]
sum 2.0 float32 4
c=[0.  1.1 2.2 3.3] pair=(array([0. , 1.1, 2.2, 3.3], dtype=float32), 4) first=0.3333333333333333
4
";

/// `print(x)` and `f\"{x}\"` inside a NumPy-style program show arrays, NumPy scalars and dtypes
/// as NumPy's `str` does (the op `str.numpy`), in every mode and backend.
#[test]
fn numpy_style_print_inside_the_program_is_numpy_text() {
    let dir = scratch_dir("numpy_display", "show");
    std::fs::write(dir.join("show.py"), SHOW).unwrap();
    run_in_every_mode(&dir, "show.py", SHOW_4);
}

/// `def scale(x, n)` scripts with `n` a Tensor (`x * n` is fine for two arrays), yet a call with
/// the ARG `3` types `n` as an int in every mode, not only in script mode.
#[test]
fn scalar_args_type_numpy_parameters_in_trace_and_eager_modes() {
    let dir = scratch_dir("numpy_display", "scale");
    let src = "import numpy as np\n\n\ndef scale(x, n):\n    return x * n\n";
    std::fs::write(dir.join("scale.py"), src).unwrap();
    let x = pyjit::runtime::Tensor::from_vec(vec![1.5f32, -2.0], &[2]).unwrap();
    pyjit::runtime::npy::write_npy(dir.join("x.npy"), &x).unwrap();
    for mode in ["script", "trace", "eager"] {
        let (code, out, err) = pyjit(&dir, &["run", "scale.py", "x.npy", "3", "--mode", mode]);
        assert_eq!(code, Some(0), "{mode}: {err}");
        assert_eq!(out, "array([ 4.5, -6. ], dtype=float32)\n", "{mode}");
    }
}
