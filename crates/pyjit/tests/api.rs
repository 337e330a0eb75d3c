//! The facade's public API: compile, call, errors, argument fitting, signatures,
//! specialization, and the `-o` output layout.

use pyjit::args::{ArgLit, fit_arg, parse_arg};
use pyjit::run::{Mode, RunOutcome, RunRequest, run};
use pyjit::{Backend, CallError, Program, SourceFile, Type, Value, output};
use pyjit_runtime::{DType, Tensor};
use std::path::Path;

const SRC: &str = r#"import torch
from torch import Tensor
from typing import List, Tuple


def conditional_op(x: Tensor, threshold: float) -> Tensor:
    if x.sum() > threshold:
        return x * 2
    else:
        return x + 1


def scaled(x: Tensor, alpha: float = 0.5, n: int = 2) -> Tensor:
    return x * alpha * n


def pair(x: Tensor) -> Tuple[Tensor, int]:
    return x + 1, x.dim()


def check(n: int) -> int:
    assert n >= 0, "n must be non-negative"
    return n
"#;

fn program() -> Program {
    Program::compile(SourceFile::new("api.py", SRC)).unwrap_or_else(|d| panic!("{d:?}"))
}

fn t(v: &[f32]) -> Value {
    Value::Tensor(Tensor::from_vec(v.to_vec(), &[v.len()]).unwrap())
}

#[test]
fn programs_and_values_can_be_shared_across_threads() {
    fn shareable<T: Send + Sync>() {}
    shareable::<Program>();
    shareable::<Value>();
}

#[test]
fn compile_and_call() {
    let p = program();
    assert_eq!(
        p.function_names(),
        vec!["conditional_op", "scaled", "pair", "check"]
    );
    let mut out = Vec::new();
    let r = p
        .call_with_output(
            "conditional_op",
            vec![t(&[1.0, 2.0]), Value::Float(0.5)],
            &mut out,
        )
        .unwrap();
    assert_eq!(output::display(&r), "tensor([2., 4.])");
    let r = p
        .call("conditional_op", vec![t(&[1.0, 2.0]), Value::Float(5.0)])
        .unwrap();
    assert_eq!(output::display(&r), "tensor([2., 3.])");
    let r = p.call("pair", vec![t(&[1.0])]).unwrap();
    assert_eq!(output::display(&r), "(tensor([2.]), 1)");
}

#[test]
fn call_errors() {
    let p = program();
    match p.call("nope", vec![]) {
        Err(CallError::UnknownFunction { available, .. }) => assert_eq!(available.len(), 4),
        other => panic!("{other:?}"),
    }
    match p.call("conditional_op", vec![Value::Int(1), Value::Float(0.5)]) {
        Err(CallError::BadArguments(m)) => assert!(m.contains("parameter `x`"), "{m}"),
        other => panic!("{other:?}"),
    }
    match p.call("conditional_op", vec![t(&[1.0])]) {
        Err(CallError::BadArguments(m)) => assert!(m.contains("takes 2 argument"), "{m}"),
        other => panic!("{other:?}"),
    }
    let e = match p.call("check", vec![Value::Int(-1)]) {
        Err(CallError::Run(e)) => e,
        other => panic!("{other:?}"),
    };
    assert_eq!(e.kind(), "AssertionError");
    assert_eq!(e.message(), "n must be non-negative");
    assert_eq!(e.location(), "api.py:22:12");
    let rendered = e.render();
    assert!(rendered.contains("api.py:22:12"), "{rendered}");
    assert!(rendered.contains("assert n >= 0"), "{rendered}");
    assert!(rendered.contains('^'), "{rendered}");
    // The program keeps working after an error.
    assert!(matches!(
        p.call("check", vec![Value::Int(3)]),
        Ok(Value::Int(3))
    ));
}

#[test]
fn compile_errors_are_diagnostics() {
    let d = Program::compile(SourceFile::new(
        "bad.py",
        "def f(x: int) -> int:\n    return x +\n",
    ))
    .err()
    .expect("a syntax error");
    assert!(!d.is_empty());
    let d = Program::compile(SourceFile::new(
        "bad.py",
        "def f(x: int) -> int:\n    return [y for y in range(x)]\n",
    ))
    .err()
    .expect("comprehensions are rejected");
    assert!(d[0].primary_span().is_some());
}

#[test]
fn defaults_fill_omitted_trailing_arguments() {
    let p = program();
    let d = p.defaults("scaled").unwrap();
    assert!(d[0].is_none());
    assert!(matches!(d[1], Some(Value::Float(x)) if x == 0.5));
    assert!(matches!(d[2], Some(Value::Int(2))));
    let dir = std::env::temp_dir().join(format!("pyjit-api-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    pyjit_runtime::npy::write_npy(
        dir.join("x.npy"),
        &Tensor::from_vec(vec![1.0f32, 3.0], &[2]).unwrap(),
    )
    .unwrap();
    let req = |args: &[&str]| RunRequest {
        function: Some("scaled".into()),
        args: args.iter().map(|s| s.to_string()).collect(),
        base_dir: dir.clone(),
        ..RunRequest::default()
    };
    let value = |o: RunOutcome| match o {
        RunOutcome::Ok { value, .. } => output::display(&value),
        other => panic!("{other:?}"),
    };
    let src = || SourceFile::new("api.py", SRC);
    assert_eq!(
        value(run(src(), &req(&["x.npy"]), &mut Vec::new())),
        "tensor([1., 3.])"
    );
    assert_eq!(
        value(run(src(), &req(&["x.npy", "2"]), &mut Vec::new())),
        "tensor([ 4., 12.])"
    );
    assert_eq!(
        value(run(src(), &req(&["x.npy", "1.0", "1"]), &mut Vec::new())),
        "tensor([1., 3.])"
    );
    match run(src(), &req(&["x.npy", "true"]), &mut Vec::new()) {
        RunOutcome::Usage(m) => assert!(m.contains("parameter `alpha`"), "{m}"),
        other => panic!("{other:?}"),
    }
    match run(src(), &req(&["x.npy", "1.0", "1", "2"]), &mut Vec::new()) {
        RunOutcome::Usage(m) => assert!(m.contains("takes 3 argument"), "{m}"),
        other => panic!("{other:?}"),
    }
    // Picking the function: several functions need -f, and the error lists them.
    let mut r = req(&["x.npy"]);
    r.function = None;
    match run(src(), &r, &mut Vec::new()) {
        RunOutcome::Usage(m) => assert!(m.contains("conditional_op, scaled, pair, check"), "{m}"),
        other => panic!("{other:?}"),
    }
    // The tracer's modes give the eager result.
    for mode in [Mode::Eager, Mode::Trace] {
        let mut r = req(&["x.npy", "2"]);
        r.mode = mode;
        assert_eq!(value(run(src(), &r, &mut Vec::new())), "tensor([ 4., 12.])");
    }
    // The native backend runs the same request to the same result.
    let mut r = req(&["x.npy", "2"]);
    r.backend = Backend::Native;
    assert_eq!(value(run(src(), &r, &mut Vec::new())), "tensor([ 4., 12.])");
    // A run-time error is classified as such.
    let r = RunRequest {
        function: Some("check".into()),
        args: vec!["-4".into()],
        ..RunRequest::default()
    };
    assert!(matches!(
        run(src(), &r, &mut Vec::new()),
        RunOutcome::RunError(_)
    ));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn native_backend_caches_one_specialization_per_signature() {
    let mut p = program();
    p.set_backend(Backend::Native);
    let f32v = |v: &[f32]| Value::Tensor(Tensor::from_vec(v.to_vec(), &[v.len()]).unwrap());
    let r = p
        .call("conditional_op", vec![f32v(&[1.0, 2.0]), Value::Float(0.5)])
        .unwrap();
    assert_eq!(output::display(&r), "tensor([2., 4.])");
    let r = p
        .call(
            "conditional_op",
            vec![f32v(&[1.0, 2.0, 3.0]), Value::Float(100.0)],
        )
        .unwrap();
    assert_eq!(output::display(&r), "tensor([2., 3., 4.])");
    assert_eq!(
        p.native_cache_len(),
        1,
        "same dtype and rank: one compiled specialization"
    );
    let x64 = Value::Tensor(Tensor::from_vec(vec![1.0f64], &[1]).unwrap());
    p.call("conditional_op", vec![x64, Value::Float(0.0)])
        .unwrap();
    assert_eq!(p.native_cache_len(), 2);
    // Errors from native code carry the same class, message and location as the interpreter's.
    let e = match p.call("check", vec![Value::Int(-1)]) {
        Err(CallError::Run(e)) => e,
        other => panic!("{other:?}"),
    };
    assert_eq!(
        e.to_string(),
        "AssertionError: n must be non-negative (at api.py:22:12)"
    );
}

#[test]
fn fitting_args_to_parameter_types() {
    let base = Path::new(".");
    let fit = |s: &str, ty: &Type| fit_arg(&parse_arg(s).unwrap(), ty, "p", base);
    assert!(matches!(fit("3", &Type::Float), Ok(Value::Float(x)) if x == 3.0));
    assert!(matches!(
        fit("none", &Type::optional(Type::Int)),
        Ok(Value::None)
    ));
    assert!(matches!(
        fit("4", &Type::optional(Type::Int)),
        Ok(Value::Int(4))
    ));
    let v = fit("[1,2,3]", &Type::list(Type::Int)).unwrap();
    assert_eq!(output::display(&v), "[1, 2, 3]");
    let v = fit(
        "(1,(2.5,true))",
        &Type::Tuple(vec![Type::Int, Type::Tuple(vec![Type::Float, Type::Bool])]),
    )
    .unwrap();
    assert_eq!(output::display(&v), "(1, (2.5, True))");
    for (arg, ty) in [
        ("2.5", Type::Int),
        ("true", Type::Int),
        ("[1,2]", Type::Tuple(vec![Type::Int, Type::Int])),
        ("(1,2,3)", Type::Tuple(vec![Type::Int, Type::Int])),
        ("3", Type::tensor()),
        ("missing.npy", Type::tensor()),
    ] {
        let e = fit(arg, &ty).unwrap_err();
        assert!(e.contains("`p`"), "{arg} for {ty}: {e}");
    }
    assert_eq!(
        parse_arg("[1, 2]").unwrap(),
        ArgLit::List(vec![ArgLit::Int(1), ArgLit::Int(2)])
    );
}

#[test]
fn signatures_key_on_dtype_and_rank() {
    let p = program();
    let f32v = |shape: &[usize]| Value::Tensor(Tensor::zeros(shape, DType::Float32).unwrap());
    let s1 = p
        .signature("conditional_op", &[f32v(&[3]), Value::Float(1.0)])
        .unwrap();
    let s2 = p
        .signature("conditional_op", &[f32v(&[7]), Value::Float(2.0)])
        .unwrap();
    let s3 = p
        .signature("conditional_op", &[f32v(&[2, 2]), Value::Float(1.0)])
        .unwrap();
    let s4 = p
        .signature(
            "conditional_op",
            &[
                Value::Tensor(Tensor::zeros(&[3], DType::Float64).unwrap()),
                Value::Float(1.0),
            ],
        )
        .unwrap();
    assert_eq!(s1, s2, "shapes of one rank share a signature");
    assert_ne!(s1, s3);
    assert_ne!(s1, s4);
    assert_eq!(s1.0[0].to_string(), "Tensor(float32, rank 1)");
}

#[test]
fn specialization_refines_tensor_types() {
    let p = program();
    let x = Value::Tensor(Tensor::zeros(&[2, 3], DType::Float64).unwrap());
    let (m, id) = p
        .specialize("conditional_op", &[x, Value::Float(0.0)])
        .unwrap();
    let text = pyjit::ir::print_function(&m, id);
    assert!(text.contains("-> Tensor[float64, 2]"), "{text}");
    assert!(text.contains("Tensor[bool, []]"), "{text}");
    pyjit::ir::verify_module(&m).unwrap();
}

#[test]
fn output_layout() {
    let ty = Type::Tuple(vec![
        Type::Tuple(vec![Type::tensor(), Type::tensor()]),
        Type::Int,
        Type::list(Type::Float),
    ]);
    let v = Value::tuple(vec![
        Value::tuple(vec![t(&[1.0]), t(&[2.0])]),
        Value::Int(5),
        Value::list(vec![]),
    ]);
    let arrays = output::to_arrays(&v, &ty).unwrap();
    let keys: Vec<&str> = arrays.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(keys, vec!["arr_0_0", "arr_0_1", "arr_1", "arr_2"]);
    assert_eq!(arrays[2].1.dtype(), DType::Int64);
    assert_eq!(arrays[2].1.dim(), 0);
    assert_eq!(
        arrays[3].1.dtype(),
        DType::Float64,
        "empty list gets its declared dtype"
    );
    assert_eq!(arrays[3].1.shape(), &[0]);
    assert!(
        output::to_arrays(&Value::None, &Type::None)
            .unwrap()
            .is_empty()
    );
    let bools = output::to_arrays(
        &Value::list(vec![Value::Bool(true)]),
        &Type::list(Type::Bool),
    )
    .unwrap();
    assert_eq!(bools[0].1.dtype(), DType::Bool);
    let dir = std::env::temp_dir().join(format!("pyjit-out-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    output::write(&dir.join("r.npz"), &v, &ty).unwrap();
    let back = pyjit_runtime::npy::read_npz(dir.join("r.npz")).unwrap();
    assert_eq!(back.len(), 4);
    output::write(&dir.join("r.npy"), &Value::Float(2.5), &Type::Float).unwrap();
    let back = pyjit_runtime::npy::read_npy(dir.join("r.npy")).unwrap();
    assert_eq!((back.dtype(), back.dim()), (DType::Float64, 0));
    assert!(
        output::write(&dir.join("r.npy"), &v, &ty).is_err(),
        "a tuple needs .npz"
    );
    assert!(output::write(&dir.join("r.txt"), &Value::Int(1), &Type::Int).is_err());
    let _ = std::fs::remove_dir_all(&dir);
}
