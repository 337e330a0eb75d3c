//! `pyjit compile --save F.pyjit` and `pyjit run F.pyjit`: saved programs from the command line.

mod common;

use common::{Scratch, pyjit_ok, pyjit_words};

fn dir(tag: &str) -> Scratch {
    common::scratch_dir("archive-cli", tag)
}

const SRC: &str = "EPS = 0.5\n\n\ndef helper(x: float) -> float:\n    return x + EPS\n\n\ndef f(x: float, n: int) -> float:\n    assert n >= 0, 'n must be non-negative'\n    return helper(x) * n\n";

#[test]
fn save_then_run_the_archive() {
    let d = dir("ok");
    std::fs::write(d.join("m.py"), SRC).unwrap();
    let (_, err) = pyjit_ok(&d, "compile m.py -f f --save f.pyjit 1.5 2");
    assert!(
        err.contains("saved f() with 1 signature(s) to f.pyjit"),
        "{err}"
    );
    // The archive is run without the .py file, and its function is the default.
    std::fs::remove_file(d.join("m.py")).unwrap();
    let (out, _) = pyjit_ok(&d, "run f.pyjit 1.5 2");
    assert_eq!(out.trim(), "4.0");
    // Run-time errors still point into the saved source.
    let (code, _, err) = pyjit_words(&d, "run f.pyjit 1.5 -1");
    assert_eq!(code, Some(2));
    assert!(
        err.contains("m.py:9:") && err.contains("n must be non-negative"),
        "{err}"
    );
}

#[test]
fn corrupt_or_foreign_archives_are_refused() {
    let d = dir("bad");
    std::fs::write(d.join("m.py"), SRC).unwrap();
    pyjit_ok(&d, "compile m.py -f f --save f.pyjit");
    let good = std::fs::read(d.join("f.pyjit")).unwrap();
    let other = String::from_utf8(good.clone())
        .unwrap()
        .replace("format 1", "format 2");
    for (name, bytes, expect) in [
        ("cut.pyjit", good[..good.len() - 9].to_vec(), "truncated"),
        (
            "v2.pyjit",
            other.into_bytes(),
            "format version 2 is not supported",
        ),
    ] {
        std::fs::write(d.join(name), &bytes).unwrap();
        let (code, _, err) = common::pyjit(&d, &["run", name, "1.0", "1"]);
        assert_eq!(code, Some(1), "{name}");
        assert!(err.contains(expect), "{name}: {err}");
    }
}

/// `--fastmath` with `--save`: the archive records the mode, and `pyjit run F.pyjit` runs the
/// fast kernel without the flag (as the source with it), bit for bit.
#[test]
fn a_fastmath_archive_runs_fast() {
    let d = dir("fastmath");
    std::fs::write(
        d.join("t.py"),
        "import torch\n\ndef g(x: torch.Tensor) -> torch.Tensor:\n    return torch.tanh(x)\n",
    )
    .unwrap();
    let xs: Vec<f32> = (0..4000).map(|i| i as f32 * 0.0025 - 5.0).collect();
    let x = pyjit::runtime::Tensor::from_vec(xs, &[4000]).unwrap();
    pyjit::runtime::npy::write_npy(d.join("x.npy"), &x).unwrap();
    pyjit_ok(&d, "compile t.py --save fast.pyjit x.npy --fastmath");
    pyjit_ok(&d, "compile t.py --save exact.pyjit x.npy");
    assert!(
        std::fs::read_to_string(d.join("fast.pyjit"))
            .unwrap()
            .contains("\nmath fast\n")
    );
    let out = |cmd: &str| {
        pyjit_ok(&d, cmd);
        std::fs::read(d.join("o.npy")).unwrap()
    };
    let fast = out("run t.py x.npy --fastmath -o o.npy");
    let exact = out("run t.py x.npy -o o.npy");
    assert_ne!(fast, exact);
    assert_eq!(out("run fast.pyjit x.npy -o o.npy"), fast);
    assert_eq!(out("run exact.pyjit x.npy -o o.npy"), exact);
}
