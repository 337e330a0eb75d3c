//! Regression tests of issue 17's crashes and edge cases, each built from its description (the
//! inputs are generated here, nothing is committed): hostile `.npy` headers given to `pyjit run`,
//! a 10,000-branch `elif` chain through every stage and backend, and one compiled function
//! (scripted and traced) called from 8 threads at once.

use pyjit::opt::OptLevel;
use pyjit::run::{RunOutcome, RunRequest, run};
use pyjit::traced::{TraceOptions, TracedProgram};
use pyjit::{Backend, Options, Program, SourceFile, Value, output};
use pyjit_runtime::Tensor;
use std::path::PathBuf;
use std::sync::Arc;

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pyjit-hardening-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A version-1 `.npy` file with header dictionary `dict` followed by `data`.
fn npy_file(dict: &str, data: &[u8]) -> Vec<u8> {
    let mut header = dict.to_string();
    while !(10 + header.len() + 1).is_multiple_of(64) {
        header.push(' ');
    }
    header.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend((header.len() as u16).to_le_bytes());
    out.extend(header.as_bytes());
    out.extend(data);
    out
}

#[test]
fn hostile_npy_headers_are_usage_errors_not_aborts() {
    let dir = temp_dir("npy");
    let cases = [
        // Issue 17 crash 1: 10**12 elements claimed, 48 bytes present (the loader used to
        // allocate 4 TB and abort).
        (
            "huge.npy",
            npy_file(
                "{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000000,), }",
                &[0; 48],
            ),
            "holds 48 bytes of data",
        ),
        // Issue 17 crash 2: `(0, 2**63)` panicked inside ndarray-npy.
        (
            "overflow.npy",
            npy_file(
                "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 9223372036854775808), }",
                &[],
            ),
            "dimension 9223372036854775808 is too large",
        ),
    ];
    let src = "def f(x):\n    return x + 1\n";
    for (name, bytes, want) in cases {
        std::fs::write(dir.join(name), bytes).unwrap();
        let req = RunRequest {
            args: vec![name.to_string()],
            base_dir: dir.clone(),
            ..RunRequest::default()
        };
        match run(SourceFile::new("f.py", src), &req, &mut Vec::new()) {
            RunOutcome::Usage(m) => {
                assert!(m.contains("parameter `x`"), "{m}");
                assert!(m.contains(want), "{name}: {m}");
            }
            other => panic!("{name}: {other:?}"),
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `def f(x: int) -> int` with an `if`/`elif` chain of `n` branches (`x == i` → `3 * i + 1`)
/// and an `else` returning -1.
fn elif_chain(n: usize) -> String {
    let mut s = String::from("def f(x: int) -> int:\n    y = 0\n    if x == 0:\n        y = 1\n");
    for i in 1..n {
        s.push_str(&format!("    elif x == {i}:\n        y = {i} * 3 + 1\n"));
    }
    s.push_str("    else:\n        y = -1\n    return y\n");
    s
}

#[test]
#[ignore = "takes minutes in a debug build: cargo test --release -p pyjit --test hardening -- --ignored"]
fn a_10000_branch_elif_chain_compiles_and_runs_everywhere() {
    // Issue 17 crash 3: this overflowed the stack during specialization, on both backends, at
    // -O0 too. Run on a thread with a main thread's 8 MiB stack (what `pyjit` runs on): the
    // compiler's walks grow the stack as they go, and the AST is taken apart iteratively.
    let n = 10_000;
    let src = Arc::new(elif_chain(n));
    std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(move || {
            for (backend, level) in [
                (Backend::Interp, OptLevel::O0),
                (Backend::Native, OptLevel::O0),
                (Backend::Native, OptLevel::O2),
                (Backend::Interp, OptLevel::O2),
            ] {
                let options = Options {
                    backend,
                    ..Options::at_level(level)
                };
                let p = Program::compile_with(SourceFile::new("elif.py", src.as_str()), options)
                    .unwrap_or_else(|d| panic!("{d:?}"));
                for (x, want) in [
                    (0, 1),
                    (1, 4),
                    (n as i64 - 1, 3 * (n as i64 - 1) + 1),
                    (-3, -1),
                ] {
                    let r = p.call("f", vec![Value::Int(x)]).unwrap();
                    assert!(
                        matches!(r, Value::Int(v) if v == want),
                        "{backend:?} {level:?} f({x}) = {r:?}"
                    );
                }
                // The IR prints and parses back (the printer and parser are depth-safe too).
                let text = pyjit::ir::print_module(p.module());
                let back = pyjit::ir::parse_module(&text).expect("printed IR parses");
                pyjit::ir::verify_module(&back).expect("and verifies");
            }
            // Eager evaluation and tracing walk the same AST.
            let mut traced = TracedProgram::from_source(
                SourceFile::new("elif.py", src.as_str()),
                "f",
                TraceOptions::default(),
                Backend::Native,
            )
            .unwrap();
            let r = traced
                .call_to(vec![Value::Int(7)], &mut Vec::new())
                .unwrap();
            assert!(matches!(r, Value::Int(22)), "{r:?}");
        })
        .unwrap()
        .join()
        .unwrap();
}

const KERNEL: &str = "import torch
from torch import Tensor


def kernel(x: Tensor, k: int) -> Tensor:
    acc = torch.zeros_like(x)
    for i in range(k):
        acc = acc + torch.relu(x - float(i)) * 0.5
    return acc.sum(0) + x.mean()
";

fn kernel_args(seed: usize) -> Vec<Value> {
    let data: Vec<f32> = (0..12)
        .map(|j| ((seed * 7 + j * 3) % 11) as f32 - 4.0)
        .collect();
    vec![
        Value::Tensor(Tensor::from_vec(data, &[3, 4]).unwrap()),
        Value::Int((seed % 4) as i64),
    ]
}

/// Calls `call` from 8 threads × `calls` calls on argument sets cycling through 16 seeds; every
/// result must equal the single-threaded one of its seed.
fn hammer(call: &(dyn Fn(Vec<Value>) -> Value + Sync), calls: usize) {
    let expected: Vec<String> = (0..16)
        .map(|s| output::display(&call(kernel_args(s))))
        .collect();
    std::thread::scope(|scope| {
        for t in 0..8 {
            let expected = &expected;
            scope.spawn(move || {
                for c in 0..calls {
                    let seed = (t * 5 + c) % 16;
                    let got = output::display(&call(kernel_args(seed)));
                    assert_eq!(got, expected[seed], "thread {t} call {c}");
                }
            });
        }
    });
}

#[test]
fn one_compiled_function_called_from_8_threads() {
    for backend in [Backend::Native, Backend::Interp] {
        let options = Options {
            backend,
            ..Options::default()
        };
        let p = Program::compile_with(SourceFile::new("kernel.py", KERNEL), options).unwrap();
        // Compile once up front, then share the program (and its native code cache).
        p.prepare("kernel", &kernel_args(0)).unwrap();
        hammer(&|args| p.call("kernel", args).unwrap(), 10_000);
        assert_eq!(
            p.native_cache_len(),
            usize::from(backend == Backend::Native)
        );
    }
}

#[test]
fn one_traced_function_called_from_8_threads() {
    // Record the trace once (for one `k`: the loop unrolls), then run its compiled program from
    // every thread; its guards are checked on each call.
    let file = SourceFile::new("kernel.py", KERNEL);
    let ast = pyjit_syntax::parse_module(&file).unwrap();
    let trace = pyjit_trace::trace_function(
        &file,
        &ast,
        "kernel",
        kernel_args(2),
        TraceOptions::default(),
    )
    .unwrap();
    let name = trace.module.func(trace.func).name.clone();
    let options = Options {
        backend: Backend::Native,
        ..Options::default()
    };
    let p = Program::from_module(trace.module.clone(), options).unwrap();
    // Seeds with k == 2 only: the trace's guard pins the trip count.
    let args = |s: usize| kernel_args(2 + 4 * (s % 4));
    let expected: Vec<String> = (0..4)
        .map(|s| output::display(&p.call(&name, args(s)).unwrap()))
        .collect();
    std::thread::scope(|scope| {
        for t in 0..8 {
            let (p, name, expected) = (&p, &name, &expected);
            scope.spawn(move || {
                for c in 0..10_000 {
                    let s = (t + c) % 4;
                    let got = output::display(&p.call(name, args(s)).unwrap());
                    assert_eq!(got, expected[s], "thread {t} call {c}");
                }
            });
        }
    });
    // The same values as eager evaluation.
    for (s, want) in expected.iter().enumerate() {
        let eager = pyjit_trace::eval_function(&file, &ast, "kernel", args(s)).expect("eager run");
        assert_eq!(&output::display(&eager), want);
    }
}
