//! The optimization flags of `pyjit run` and `pyjit compile` (`-O0/-O1/-O2`, `--passes`,
//! `--print-after-all`, `--print-after=PASS`, `--time-passes`, `--opt-limit PASS=N`) and
//! `pyjit run --time`, through the binary: every level gives the same output on both backends,
//! bad pass names are usage errors (exit 64) that list the passes, and the dumps, statistics and
//! timings reach stderr.

use pyjit::opt::passes::ALL_PASSES;
mod common;

use common::{NATIVE_SCRIPT_PHASES, Scratch, pyjit, pyjit_ok, pyjit_words, scratch_dir};

/// A small helper to inline, a constant-trip loop to unroll, an invariant product to hoist, a
/// print, and a tensor.
const SRC: &str = "\
def scale(v: int) -> int:
    return v * 1 + 0

def f(n: int, x: torch.Tensor) -> torch.Tensor:
    s = 0
    for i in range(4):
        k = n * 3
        s = s + scale(i) + k
    print(s)
    return x * s
";

fn workdir(tag: &str) -> Scratch {
    let dir = scratch_dir("opt-cli", tag);
    std::fs::write(dir.join("prog.py"), format!("import torch\n\n{SRC}")).unwrap();
    let x = pyjit::runtime::Tensor::from_vec(vec![1.0f32, -2.0, 0.5], &[3]).unwrap();
    pyjit::runtime::npy::write_npy(dir.join("x.npy"), &x).unwrap();
    dir
}

/// How many `; ---- IR after PASS ----` headers stderr holds, per pass name.
fn dump_headers(stderr: &str) -> Vec<String> {
    stderr
        .lines()
        .filter_map(|l| l.strip_prefix("; ---- IR after "))
        .filter_map(|l| l.strip_suffix(" ----"))
        .map(String::from)
        .collect()
}

#[test]
fn levels_agree_on_both_backends() {
    let dir = workdir("levels");
    let (reference, _) = pyjit_ok(&dir, "run prog.py -f f 2 x.npy -O0");
    // 0+1+2+3 + 4*6 = 30, printed, then x * 30.
    assert_eq!(reference, "30\ntensor([ 30., -60.,  15.])\n");
    let spellings: [&[&str]; 6] = [
        &["-O2"],
        &["-O1"],
        &["-O", "2"],
        &["--opt-level", "1"],
        &["--opt-level=0"],
        &[],
    ];
    for backend in ["native", "interp"] {
        for level in spellings {
            // The flag before the file and after the ARGs.
            let mut before = vec!["run"];
            before.extend_from_slice(level);
            before.extend_from_slice(&["prog.py", "-f", "f", "2", "x.npy", "--backend", backend]);
            let mut after = vec![
                "run",
                "prog.py",
                "-f",
                "f",
                "2",
                "x.npy",
                "--backend",
                backend,
            ];
            after.extend_from_slice(level);
            for words in [before, after] {
                let (code, out, err) = pyjit(&dir, &words);
                assert_eq!(code, Some(0), "{words:?}: {err}");
                assert_eq!(out, reference, "{words:?}");
            }
        }
    }
    // An explicit pass list and a bisection limit give the same output too.
    for extra in [
        &["--passes", "inline,unroll,constfold,dce"][..],
        &["--opt-limit", "unroll=0", "--opt-limit", "inline=1"],
    ] {
        let mut words = vec!["run", "prog.py", "-f", "f", "2", "x.npy"];
        words.extend_from_slice(extra);
        let (code, out, err) = pyjit(&dir, &words);
        assert_eq!((code, out.as_str()), (Some(0), reference.as_str()), "{err}");
    }
}

#[test]
fn bad_optimization_flags_are_usage_errors() {
    let dir = workdir("bad");
    // Each command, and whether its error is an unknown pass name (which lists the passes).
    for (cmd, unknown_pass) in [
        ("run prog.py -f f 2 x.npy --passes dce,bogus", true),
        ("run --passes=bogus prog.py -f f 2 x.npy", true),
        ("compile prog.py -f f 2 x.npy --passes bogus", true),
        ("run prog.py -f f 2 x.npy --print-after=bogus", true),
        ("run prog.py -f f 2 x.npy --opt-limit bogus=3", true),
        ("run prog.py -f f 2 x.npy -O3", false),
        ("run -O3 prog.py -f f 2 x.npy", false),
        ("run prog.py -f f 2 x.npy --opt-limit dce", false),
        ("run prog.py -f f 2 x.npy --opt-limit dce=many", false),
        ("run prog.py -f f 2 x.npy --passes", false),
    ] {
        let (code, out, err) = pyjit_words(&dir, cmd);
        assert_eq!(code, Some(64), "{cmd}: {err}");
        if !unknown_pass {
            continue;
        }
        assert!(out.is_empty(), "{cmd}: nothing runs: {out}");
        assert!(err.contains("unknown pass `bogus`"), "{cmd}: {err}");
        for pass in ALL_PASSES {
            assert!(err.contains(pass), "{cmd}: `{pass}` not listed: {err}");
        }
    }
}

#[test]
fn print_after_dumps_the_ir() {
    let dir = workdir("print");
    let run = ["run", "prog.py", "-f", "f", "2", "x.npy"];
    let with = |extra: &[&str]| {
        let mut w = run.to_vec();
        w.extend_from_slice(extra);
        let (code, out, err) = pyjit(&dir, &w);
        assert_eq!(code, Some(0), "{w:?}: {err}");
        assert_eq!(
            out, "30\ntensor([ 30., -60.,  15.])\n",
            "{w:?}: dumps go to stderr"
        );
        err
    };
    // Without a flag, nothing but the result.
    assert_eq!(with(&[]), "");
    // One pass: its dumps only (it runs twice at -O2), with the specialized function in them.
    let err = with(&["--print-after=licm"]);
    assert_eq!(dump_headers(&err), ["licm", "licm"], "{err}");
    assert!(
        err.contains("func @\"f.specialized\"(%n: int, %x: Tensor[float32, 1])"),
        "{err}"
    );
    assert!(
        err.contains("# prog.py:"),
        "spans point into the source: {err}"
    );
    // Repeatable.
    let err = with(&["--print-after", "inline", "--print-after=unroll"]);
    assert_eq!(dump_headers(&err), ["inline", "unroll"], "{err}");
    // After unrolling, the specialized function has no loop left.
    let after_unroll = err.split("; ---- IR after unroll ----").nth(1).unwrap();
    let specialized = after_unroll
        .split("func @\"f.specialized\"")
        .nth(1)
        .unwrap();
    assert!(!specialized.contains("loop("), "{specialized}");
    // Every pass of the pipeline, in order.
    let err = with(&["--print-after-all"]);
    let o2: Vec<&str> = pyjit::opt::OptLevel::O2.pipeline().to_vec();
    assert_eq!(dump_headers(&err), o2, "{err}");
    let err = with(&["--print-after-all", "-O1"]);
    assert_eq!(
        dump_headers(&err),
        pyjit::opt::OptLevel::O1.pipeline(),
        "{err}"
    );
    let err = with(&["--print-after-all", "--passes", "constfold,dce"]);
    assert_eq!(dump_headers(&err), ["constfold", "dce"], "{err}");
    assert!(dump_headers(&with(&["--print-after-all", "-O0"])).is_empty());
    // Statistics and timings.
    let err = with(&["--time-passes"]);
    assert!(err.contains("pass ") && err.contains("statistics"), "{err}");
    assert!(
        err.contains("unroll ") && err.contains("unrolled="),
        "{err}"
    );
    assert!(err.contains("inlined="), "{err}");
    assert!(
        err.lines()
            .any(|l| l.starts_with("total: ") && l.ends_with(" ms")),
        "{err}"
    );
    // --opt-limit unroll=0 keeps the loop.
    let err = with(&["--opt-limit", "unroll=0", "--time-passes"]);
    assert!(!err.contains("unrolled="), "{err}");
}

#[test]
fn compile_prints_the_optimized_specialized_ir() {
    let dir = workdir("compile");
    let ir = |extra: &[&str]| {
        let mut w = vec![
            "compile", "prog.py", "-f", "f", "--emit", "ir", "2", "x.npy",
        ];
        w.extend_from_slice(extra);
        let (code, out, err) = pyjit(&dir, &w);
        assert_eq!(code, Some(0), "{w:?}: {err}");
        assert!(
            out.starts_with("func @\"f.specialized\"(%n: int, %x: Tensor[float32, 1])"),
            "{out}"
        );
        out
    };
    let o0 = ir(&["-O0"]);
    let o2 = ir(&["-O2"]);
    assert_eq!(ir(&[]), o2, "-O2 is the default");
    assert!(o0.contains("loop(") && o0.contains("call @scale"), "{o0}");
    // Inlined, unrolled, folded: no loop, no call, fewer lines.
    assert!(!o2.contains("loop(") && !o2.contains("call "), "{o2}");
    assert!(
        o2.lines().count() < o0.lines().count(),
        "-O0:\n{o0}\n-O2:\n{o2}"
    );
    // The limit stops unrolling: the loop stays.
    assert!(ir(&["--opt-limit", "unroll=0"]).contains("loop("));
    // The native listing of the optimized module compiles.
    let (clif, _) = pyjit_ok(&dir, "compile prog.py -f f 2 x.npy --emit clif -O2");
    assert!(clif.contains("function "), "{clif}");
}

#[test]
fn time_prints_the_phases() {
    let dir = workdir("time");
    let phases = |backend: &str| {
        let cmd = format!("run prog.py -f f 2 x.npy --time --backend {backend}");
        let (code, out, err) = pyjit_words(&dir, &cmd);
        assert_eq!(code, Some(0), "{err}");
        assert_eq!(out, "30\ntensor([ 30., -60.,  15.])\n");
        err.lines()
            .filter_map(|l| l.strip_prefix("time: "))
            .map(|l| {
                let name = l.split_whitespace().next().unwrap().to_string();
                let ms: f64 = l.split_whitespace().nth(1).unwrap().parse().unwrap();
                assert!(l.contains(" ms"), "{l}");
                assert!(ms >= 0.0);
                name
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(phases("native"), NATIVE_SCRIPT_PHASES);
    assert_eq!(
        phases("interp"),
        ["parse", "frontend", "specialize", "passes", "run"]
    );
    // Native is the default backend.
    let (code, _, err) = pyjit(&dir, &["run", "--time", "prog.py", "-f", "f", "2", "x.npy"]);
    assert_eq!(code, Some(0));
    assert!(
        err.contains("time: cranelift") && err.contains("(--backend native)"),
        "{err}"
    );
}

#[test]
fn trace_mode_honours_the_optimization_flags() {
    let dir = workdir("trace");
    let with = |extra: &[&str]| {
        let mut w = vec!["run", "--mode", "trace", "prog.py", "-f", "f", "2", "x.npy"];
        w.extend_from_slice(extra);
        let (code, out, err) = pyjit(&dir, &w);
        assert_eq!(code, Some(0), "{w:?}: {err}");
        assert_eq!(out, "30\ntensor([ 30., -60.,  15.])\n", "{w:?}");
        err
    };
    // Every level gives the same answer; -O0 runs no pass, -O1/-O2 their pipelines, on the
    // trace's own function.
    assert!(dump_headers(&with(&["-O0", "--print-after-all"])).is_empty());
    for (flag, level) in [
        ("-O1", pyjit::opt::OptLevel::O1),
        ("-O2", pyjit::opt::OptLevel::O2),
    ] {
        let err = with(&[flag, "--print-after-all"]);
        assert_eq!(dump_headers(&err), level.pipeline(), "{flag}: {err}");
        assert!(err.contains("; ==== passes on "), "{err}");
    }
    let err = with(&["--passes", "constfold,dce", "--print-after-all"]);
    assert_eq!(dump_headers(&err), ["constfold", "dce"], "{err}");
    // --time-passes lists the passes that ran: the pipeline at -O2 (the default), none at -O0
    // (the trace was still compiled: its report is there, empty).
    let rows = |err: &str| {
        assert!(err.contains("; ==== passes on f(int, "), "{err}");
        assert!(
            err.lines()
                .any(|l| l.starts_with("total: ") && l.ends_with(" ms")),
            "{err}"
        );
        err.lines()
            .skip_while(|l| !l.starts_with("pass "))
            .skip(1)
            .take_while(|l| !l.starts_with("total: "))
            .map(|l| l.split_whitespace().next().unwrap_or("").to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        rows(&with(&["--time-passes"])),
        pyjit::opt::OptLevel::O2.pipeline(),
    );
    assert!(rows(&with(&["-O0", "--time-passes"])).is_empty());
}

/// `--fastmath` (before or after the ARGs): the IR has `tanh_fast` at every level, and both
/// backends print the same tensor.
#[test]
fn fastmath_selects_the_fast_tanh_on_both_backends() {
    let dir = scratch_dir("opt-cli", "fastmath");
    std::fs::write(
        dir.join("t.py"),
        "import torch\n\ndef g(x: torch.Tensor) -> torch.Tensor:\n    return torch.tanh(x) * 2.0\n",
    )
    .unwrap();
    let x = pyjit::runtime::Tensor::from_vec(vec![0.3f32, -1.7, 6.1], &[3]).unwrap();
    pyjit::runtime::npy::write_npy(dir.join("x.npy"), &x).unwrap();
    for level in ["-O0", "-O2"] {
        let (ir, _) = pyjit_ok(
            &dir,
            &format!("compile t.py x.npy --emit ir {level} --fastmath"),
        );
        assert!(ir.contains("tensor.tanh_fast("), "{ir}");
        let (ir, _) = pyjit_ok(&dir, &format!("compile t.py x.npy --emit ir {level}"));
        assert!(
            ir.contains("tensor.tanh(") && !ir.contains("tanh_fast"),
            "{ir}"
        );
    }
    let (native, _) = pyjit_ok(&dir, "run --fastmath t.py x.npy");
    let (interp, _) = pyjit_ok(&dir, "run t.py x.npy --backend interp --fastmath -O0");
    assert_eq!(native, interp);
    // (A few ulp do not show in four digits: 2 tanh(0.3) = 0.58259, 2 tanh(-1.7) = -1.87077.)
    assert_eq!(native, "tensor([ 0.5826, -1.8708,  2.0000])\n");
}
