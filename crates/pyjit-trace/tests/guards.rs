//! Guards and re-tracing on the seed's and the peer benchmark's data-dependent workloads
//! (`conditional_op`, `converge`, `iterate`, where torch.jit.trace is silently wrong on a second
//! input), with and without guards; rendered warnings and check_trace reports as snapshots.

mod common;

use common::{parsed, t, trace_of};

use pyjit_interp::Value;
use pyjit_runtime::Tensor;
use pyjit_syntax::SourceFile;
use pyjit_syntax::ast::Module;
use pyjit_trace::{CheckReport, TraceOptions, TracedFunction, check_trace, compare_values};

fn program(name: &str) -> SourceFile {
    parsed_program(name).0
}

/// `tests/programs/NAME.py` (as `NAME.py`) and its module.
fn parsed_program(name: &str) -> (SourceFile, Module) {
    let path = common::repo_root().join(format!("tests/programs/{name}.py"));
    parsed(
        format!("{name}.py"),
        std::fs::read_to_string(path).expect("program"),
    )
}

fn eager(file: &SourceFile, name: &str, args: Vec<Value>) -> Value {
    let m = pyjit_syntax::parse_module(file).expect("parses");
    pyjit_trace::eval_function_to(file, &m, name, args, &mut Vec::new()).expect("eager")
}

fn close(a: &Value, b: &Value) -> bool {
    compare_values(a, b).is_none()
}

/// The elements of a tensor result (panics on any other value).
fn floats(v: &Value) -> Vec<f32> {
    let Value::Tensor(t) = v else {
        panic!("tensor")
    };
    t.to_vec::<f32>()
}

/// `check_trace` of `name` over `inputs`, its prints dropped.
fn check(file: &SourceFile, m: &Module, name: &str, inputs: Vec<Vec<Value>>) -> CheckReport {
    check_trace(file, m, name, inputs, &mut Vec::new()).expect("check")
}

/// A traced `f` of source `src` (the file `path`), with guards.
fn traced_f(path: &str, src: &str) -> TracedFunction {
    let file = SourceFile::new(path, src);
    TracedFunction::from_source(file, "f", TraceOptions::default()).expect("parses")
}

/// `name` traced on `a` and then called on `b`, which takes another path: with guards it
/// re-traces and agrees with eager evaluation; without, it gives torch.jit.trace's wrong answer
/// `torch_answer`.
fn guarded_then_torch_answer(name: &str, a: Vec<Value>, b: Vec<Value>, torch_answer: &[f32]) {
    let file = program(name);
    let want = eager(&file, name, b.clone());
    let (got, f) = call_twice(&file, name, a.clone(), b.clone(), true);
    assert!(close(&got, &want));
    assert_eq!(f.stats.traces, 2);
    let (wrong, _) = call_twice(&file, name, a, b, false);
    assert!(!close(&wrong, &want));
    assert!(
        close(&wrong, &t(torch_answer)),
        "same wrong answer as torch.jit.trace"
    );
}

/// Calls `name` on `first` (which traces) and then on `second`; returns the second result and
/// the function (for its stats).
fn call_twice(
    file: &SourceFile,
    name: &str,
    first: Vec<Value>,
    second: Vec<Value>,
    guards: bool,
) -> (Value, TracedFunction) {
    let mut f = TracedFunction::from_source(
        file.clone(),
        name,
        TraceOptions {
            guards,
            ..TraceOptions::default()
        },
    )
    .expect("parses");
    f.call_to(first, &mut Vec::new()).expect("first call");
    let r = f.call_to(second, &mut Vec::new()).expect("second call");
    (r, f)
}

#[test]
fn conditional_op_retraces_on_the_other_branch() {
    let file = program("conditional_op");
    let big = vec![t(&[1.0, 2.0, 3.0]), Value::Float(0.5)];
    let small = vec![t(&[-1.0, -2.0, 0.5]), Value::Float(0.5)];
    let want = eager(&file, "conditional_op", small.clone());
    let (got, f) = call_twice(&file, "conditional_op", big.clone(), small.clone(), true);
    assert!(close(&got, &want), "guarded trace must agree with eager");
    assert_eq!(f.stats.traces, 2);
    assert_eq!(f.stats.guard_failures, 1);
    // Same branch again: a cache hit, no new trace.
    let mut f = f;
    f.call_to(big.clone(), &mut Vec::new()).expect("third call");
    assert_eq!(f.stats.traces, 2);
    assert_eq!(f.stats.hits, 1);
    // `threshold` is a graph input, not a constant: another value on the same branch reuses the
    // trace; one that flips the branch re-checks and picks the other cached trace.
    for (threshold, want) in [(5.0, [2.0, 4.0, 6.0]), (6.0, [2.0, 3.0, 4.0])] {
        let args = vec![t(&[1.0, 2.0, 3.0]), Value::Float(threshold)];
        let r = f.call_to(args, &mut Vec::new()).expect("call");
        assert_eq!(floats(&r), want);
    }
    assert_eq!(f.stats.traces, 2);
    assert_eq!(f.stats.hits, 3);

    // Without guards: torch.jit.trace's answer, x * 2 on an input that should give x + 1.
    let (wrong, f) = call_twice(&file, "conditional_op", big, small.clone(), false);
    assert_eq!(f.stats.traces, 1);
    assert!(
        !close(&wrong, &want),
        "without guards the trace is silently wrong"
    );
    assert_eq!(floats(&wrong), vec![-2.0, -4.0, 1.0]);
}

#[test]
fn converge_unrolled_loop_is_guarded() {
    // torch.jit.trace(converge, tensor([0.01, -0.004]))(tensor([8., 1.])) in PyTorch 2.x:
    guarded_then_torch_answer(
        "converge",
        vec![t(&[0.01, -0.004])],
        vec![t(&[8.0, 1.0])],
        &[0.5, 0.0625],
    );
}

#[test]
fn iterate_int_argument_is_guarded() {
    // torch.jit.trace(lambda x: iterate(x, 3), ...) bakes n = 3 in, as --no-guards does:
    guarded_then_torch_answer(
        "iterate",
        vec![t(&[0.5, -1.0]), Value::Int(3)],
        vec![t(&[0.5, -1.0]), Value::Int(7)],
        &[0.488_873_5, -0.932_459_5],
    );
}

#[test]
fn cache_is_bounded_then_eager() {
    let file = program("iterate");
    let mut f = TracedFunction::from_source(file.clone(), "iterate", TraceOptions::default())
        .expect("parses");
    for n in 0..12 {
        let args = vec![t(&[0.5]), Value::Int(n)];
        let want = eager(&file, "iterate", args.clone());
        let got = f.call_to(args, &mut Vec::new()).expect("call");
        assert!(close(&got, &want), "n = {n}");
    }
    assert_eq!(f.stats.traces, pyjit_trace::CACHE_LIMIT);
    assert_eq!(f.stats.eager_fallbacks, 12 - pyjit_trace::CACHE_LIMIT);
}

#[test]
fn trace_ir_and_warnings_snapshot() {
    let (file, m) = parsed_program("conditional_op");
    let trace = |opts| {
        let args = vec![t(&[1.0, 2.0, 3.0]), Value::Float(0.5)];
        trace_of(&file, &m, "conditional_op", args, opts).expect("traces")
    };
    let tr = trace(TraceOptions::default());
    insta::assert_snapshot!("conditional_op_trace", tr.print());
    assert!(
        tr.render(&file).contains("# 1 guard; "),
        "{}",
        tr.render(&file)
    );
    insta::assert_snapshot!("conditional_op_warnings", tr.render_warnings(&file));
    let no = trace(TraceOptions::no_guards());
    assert!(no.guards.is_empty());
    insta::assert_snapshot!(
        "conditional_op_warnings_no_guards",
        no.render_warnings(&file)
    );
}

#[test]
fn check_trace_report_snapshot() {
    let (file, m) = parsed_program("conditional_op");
    let report = check(
        &file,
        &m,
        "conditional_op",
        vec![
            vec![t(&[1.0, 2.0, 3.0]), Value::Float(0.5)],
            vec![t(&[4.0, 5.0, 6.0]), Value::Float(0.5)],
            vec![t(&[-1.0, -2.0, 0.5]), Value::Float(0.5)],
        ],
    );
    assert_eq!(report.inputs, 3);
    assert_eq!(
        report.mismatches.len(),
        1,
        "only the third input takes the other branch"
    );
    assert_eq!(report.mismatches[0].input, 2);
    assert!(report.mismatches[0].result_diff.is_some());
    insta::assert_snapshot!("conditional_op_check_trace", report.render(&file));

    let (conv, cm) = parsed_program("converge");
    // The first input set, then `second`.
    let check_converge = |second: &[f32]| {
        let inputs = vec![vec![t(&[0.01, -0.004])], vec![t(second)]];
        check(&conv, &cm, "converge", inputs)
    };
    let report = check_converge(&[8.0, 1.0]);
    insta::assert_snapshot!("converge_check_trace", report.render(&conv));

    let same = check_converge(&[0.012, 0.001]);
    assert!(same.is_ok(), "{}", same.render(&conv));
}

#[test]
fn traced_prints_are_not_duplicated_on_guard_failure() {
    let src = "import torch\n\ndef f(x):\n    print(x.sum())\n    if x.sum() > 0:\n        return x * 2\n    return x - 1\n";
    let mut tf = traced_f("p.py", src);
    let mut out = Vec::new();
    tf.call_to(vec![t(&[1.0, 2.0])], &mut out).expect("call");
    tf.call_to(vec![t(&[-1.0, -2.0])], &mut out).expect("call");
    tf.call_to(vec![t(&[3.0, 2.0])], &mut out).expect("call");
    assert_eq!(
        String::from_utf8_lossy(&out),
        "tensor(3.)\ntensor(-3.)\ntensor(5.)\n"
    );
    assert_eq!(tf.stats.traces, 2);
    assert_eq!(tf.stats.hits, 1);
}

#[test]
fn inplace_args_are_untouched_by_an_abandoned_run() {
    let src = "import torch\n\ndef f(x):\n    x += 1\n    if x.sum() > 0:\n        return x * 2\n    return x\n";
    let mut tf = traced_f("p.py", src);
    let a = Tensor::from_slice(&[1.0f32, 2.0]);
    tf.call_to(vec![Value::Tensor(a.clone())], &mut Vec::new())
        .expect("call");
    assert_eq!(a.to_vec::<f32>(), vec![2.0, 3.0]);
    // Takes the other branch: the cached trace fails its guard after `x += 1`; the argument must
    // be incremented once, not twice.
    let b = Tensor::from_slice(&[-5.0f32, -6.0]);
    let r = tf
        .call_to(vec![Value::Tensor(b.clone())], &mut Vec::new())
        .expect("call");
    assert_eq!(b.to_vec::<f32>(), vec![-4.0, -5.0]);
    assert_eq!(floats(&r), vec![-4.0, -5.0]);
    // The cached trace hits, writing through to the caller's tensor.
    let c = Tensor::from_slice(&[0.0f32, 1.0]);
    tf.call_to(vec![Value::Tensor(c.clone())], &mut Vec::new())
        .expect("call");
    assert_eq!(c.to_vec::<f32>(), vec![1.0, 2.0]);
    assert_eq!(tf.stats.hits, 1);
}

#[test]
fn scripted_callee_keeps_its_control_flow() {
    let src = "import torch\nfrom torch import Tensor\n\n@torch.jit.script\ndef pick(x: Tensor) -> Tensor:\n    if x.sum() > 0:\n        return x * 2\n    return x - 1\n\ndef f(x):\n    return pick(x) + 1\n";
    let (file, m) = parsed("mix.py", src);
    let args = vec![t(&[1.0, 2.0])];
    let tr = trace_of(&file, &m, "f", args, TraceOptions::default()).expect("traces");
    assert!(
        tr.guards.is_empty(),
        "the branch is inside the scripted callee: {:?}",
        tr.guards
    );
    let text = tr.print();
    assert!(text.contains("call @pick"), "{text}");
    assert!(
        text.contains(" if "),
        "the scripted callee keeps its if: {text}"
    );
    // One trace serves both branches.
    let r = tr
        .run(vec![t(&[-1.0, -2.0])], &mut Vec::new())
        .expect("runs");
    assert_eq!(floats(&r), vec![-1.0, -2.0]);
}

#[test]
fn rust_closure_trace_and_poisoned_errors() {
    use pyjit_trace::rust_api::{Handle, trace};
    let a = Tensor::from_slice(&[1.0f32, -2.0]);
    let w = Tensor::from_vec(vec![1.0f32, 0.0, 0.0, 1.0], &[2, 2]).expect("2x2");
    let g = trace(
        |xs: &[Handle]| (xs[1].matmul(&xs[0]) - 0.5).relu(),
        &[a.clone(), w.clone()],
    )
    .expect("traces");
    assert_eq!(g.result.to_vec::<f32>(), vec![0.5, 0.0]);
    let r = g
        .call(&[Tensor::from_slice(&[3.0f32, 4.0]), w])
        .expect("runs");
    assert_eq!(r.to_vec::<f32>(), vec![2.5, 3.5]);
    let bad = trace(
        |xs: &[Handle]| &xs[0] + &xs[1],
        &[a, Tensor::from_slice(&[1.0f32, 2.0, 3.0])],
    );
    let e = bad.expect_err("shape mismatch");
    assert_eq!(e.kind, "RuntimeError");
    assert!(e.message.contains("must match"), "{e}");
}

#[test]
fn untraceable_result_falls_back_to_the_eager_answer() {
    let src = "import torch\n\ndef f(x):\n    return [x * 2, 'label', 3]\n";
    let mut tf = traced_f("h.py", src);
    let r = tf
        .call_to(vec![t(&[1.0])], &mut Vec::new())
        .expect("eager answer");
    assert_eq!(
        pyjit_interp::format::py_str(&r),
        "[tensor([2.]), 'label', 3]"
    );
    assert_eq!(tf.stats.traces, 0);
    assert_eq!(tf.stats.eager_fallbacks, 1);
    assert!(
        tf.warnings[0].message.contains("heterogeneous list"),
        "{:?}",
        tf.warnings
    );
}

#[test]
fn caught_tensor_op_errors_are_not_traced_but_run_eagerly() {
    let src = "import torch\n\ndef f(x):\n    try:\n        return x + torch.ones(3)\n    except RuntimeError:\n        return x\n";
    let (file, m) = parsed("c.py", src);
    // Eagerly, Python semantics: the shape error is caught.
    let args = vec![t(&[1.0, 2.0])];
    let r = pyjit_trace::eval_function_to(&file, &m, "f", args.clone(), &mut Vec::new())
        .expect("caught");
    assert_eq!(pyjit_interp::format::py_str(&r), "tensor([1., 2.])");
    // A trace may not record it: whether the op raises depends on shapes it does not guard.
    let e = trace_of(&file, &m, "f", args, TraceOptions::default()).expect_err("refused");
    assert_eq!(e.kind, "TraceError");
    assert!(
        e.message
            .contains("depends on values the trace does not guard"),
        "{e}"
    );
    // When the body does not raise while tracing, a later input that raises falls back to eager.
    let mut tf =
        TracedFunction::from_source(file.clone(), "f", TraceOptions::default()).expect("parses");
    let r = tf
        .call_to(vec![t(&[1.0, 2.0, 3.0])], &mut Vec::new())
        .expect("traced");
    assert_eq!(pyjit_interp::format::py_str(&r), "tensor([2., 3., 4.])");
    let r = tf
        .call_to(vec![t(&[1.0, 2.0])], &mut Vec::new())
        .expect("eager fallback");
    assert_eq!(pyjit_interp::format::py_str(&r), "tensor([1., 2.])");
}
