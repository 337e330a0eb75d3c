//! Run-time errors on the native backend: each reports the interpreter's exception (class,
//! message, span of the op, call stack), nothing crashes or leaks, and the next call works.

#[path = "native_common/mod.rs"]
mod common;
use common::*;
use pyjit_codegen::{NativeModule, Options, Value};
use pyjit_runtime::{DType, Tensor};

const SRC: &str = "\
import torch
from torch import Tensor
from typing import List

def add(a: Tensor, b: Tensor) -> Tensor:
    return a + b

def pick(x: Tensor, i: int) -> Tensor:
    return x[i]

def nth(xs: List[int], i: int) -> int:
    return xs[i]

def div(a: int, b: int) -> int:
    return a // b

def fdiv(a: float, b: float) -> float:
    return a % b

def positive(x: int) -> int:
    assert x > 0, 'x must be positive'
    return x

def down(n: int) -> int:
    if n == 0:
        return 0
    return 1 + down(n - 1)

def forever(n: int) -> int:
    return forever(n + 1)

def nested(n: int) -> int:
    return div(n, n - 3) + 1
";

fn t(v: Vec<f32>) -> Value {
    let n = v.len();
    Value::Tensor(Tensor::from_vec(v, &[n]).unwrap())
}

/// The error of native `name` called with `args`, which must fail.
fn call_err(nm: &NativeModule, name: &str, args: &[Value]) -> pyjit_codegen::InterpError {
    nm.function(name).unwrap().call(args).unwrap_err()
}

/// [`call_err`], after checking the failure against the interpreter's.
fn same_failure(
    m: &pyjit_ir::Module,
    nm: &NativeModule,
    name: &str,
    args: &[Value],
) -> pyjit_codegen::InterpError {
    check_same(m, nm, name, args);
    call_err(nm, name, args)
}

fn setup() -> (pyjit_ir::Module, NativeModule) {
    let m = script(SRC);
    let nm = native(&m);
    (m, nm)
}

/// Checks the failing call against the interpreter, that the error is of `class`, that no
/// reference leaked, and that a following good call succeeds.
fn fails_then_recovers(name: &str, bad: Vec<Value>, class: &str, good: Vec<Value>) {
    let (m, nm) = setup();
    let (t0, o0) = live_references();
    let err = same_failure(&m, &nm, name, &bad);
    assert_eq!(err.kind, class, "{err}");
    assert_ne!(
        err.span,
        pyjit_syntax::Span::DUMMY,
        "error has no location: {err}"
    );
    check_same(&m, &nm, name, &good);
    assert!(nm.function(name).unwrap().call(&good).is_ok());
    drop(nm);
    assert_eq!(live_references(), (t0, o0));
}

#[test]
fn shape_mismatch() {
    let _g = serial();
    fails_then_recovers(
        "add",
        vec![t(vec![1.0, 2.0]), t(vec![1.0, 2.0, 3.0])],
        "RuntimeError",
        vec![t(vec![1.0, 2.0]), t(vec![3.0, 4.0])],
    );
}

#[test]
fn tensor_index_out_of_range() {
    let _g = serial();
    fails_then_recovers(
        "pick",
        vec![t(vec![1.0, 2.0]), Value::Int(5)],
        "IndexError",
        vec![t(vec![1.0, 2.0]), Value::Int(-1)],
    );
}

#[test]
fn list_index_out_of_range() {
    let _g = serial();
    let xs = || Value::list(vec![Value::Int(1), Value::Int(2)]);
    fails_then_recovers(
        "nth",
        vec![xs(), Value::Int(2)],
        "IndexError",
        vec![xs(), Value::Int(-2)],
    );
}

#[test]
fn division_by_zero() {
    let _g = serial();
    fails_then_recovers(
        "div",
        vec![Value::Int(1), Value::Int(0)],
        "ZeroDivisionError",
        vec![Value::Int(-7), Value::Int(2)],
    );
    fails_then_recovers(
        "fdiv",
        vec![Value::Float(1.0), Value::Float(0.0)],
        "ZeroDivisionError",
        vec![Value::Float(-7.5), Value::Float(2.0)],
    );
}

#[test]
fn failing_assert() {
    let _g = serial();
    fails_then_recovers(
        "positive",
        vec![Value::Int(-1)],
        "AssertionError",
        vec![Value::Int(3)],
    );
    let (_, nm) = setup();
    let e = call_err(&nm, "positive", &[Value::Int(0)]);
    assert_eq!(e.to_string(), "AssertionError: x must be positive");
}

#[test]
fn deep_recursion_is_an_error_not_a_crash() {
    let _g = serial();
    let (m, nm) = setup();
    let e = same_failure(&m, &nm, "forever", &[Value::Int(0)]);
    assert_eq!(e.kind, "RecursionError");
    // The failing call is the 1001st; 1000 call sites lead to it, as in the interpreter.
    assert_eq!(e.call_stack.len(), 1000);
    check_same(&m, &nm, "down", &[Value::Int(10)]);
}

#[test]
fn recursion_within_the_limit_works() {
    let _g = serial();
    let (m, nm) = setup();
    check_same(&m, &nm, "down", &[Value::Int(900)]);
    let e = same_failure(&m, &nm, "down", &[Value::Int(5000)]);
    assert_eq!(e.kind, "RecursionError");
    // A larger limit is a compile option.
    let big = NativeModule::compile(
        &m,
        &Options {
            max_call_depth: 20_000,
            ..Options::default()
        },
    )
    .unwrap();
    assert!(matches!(
        big.function("down").unwrap().call(&[Value::Int(10_000)]),
        Ok(Value::Int(10_000))
    ));
}

#[test]
fn errors_carry_the_call_stack() {
    let _g = serial();
    let (m, nm) = setup();
    let e = same_failure(&m, &nm, "nested", &[Value::Int(3)]);
    assert_eq!(e.function, "div");
    assert_eq!(e.call_stack.len(), 1);
    assert_eq!(e.call_stack[0].function, "nested");
    let file = pyjit_syntax::SourceFile::new("test.py", SRC);
    let rendered = e.render(&file);
    assert!(
        rendered.contains("integer division or modulo by zero"),
        "{rendered}"
    );
    assert!(rendered.contains("test.py:15"), "{rendered}");
}

#[test]
fn wrong_arguments_are_errors() {
    let _g = serial();
    let (_, nm) = setup();
    let f = nm.function("div").unwrap();
    assert_eq!(f.call(&[Value::Int(1)]).unwrap_err().kind, "TypeError");
    assert_eq!(
        f.call(&[Value::Int(1), Value::str("x")]).unwrap_err().kind,
        "TypeError"
    );
    let t0 = pyjit_runtime::abi::live_tensor_count();
    let add = nm.function("add").unwrap();
    let z = Value::Tensor(Tensor::zeros(&[2], DType::Float32).unwrap());
    assert_eq!(add.call(&[z, Value::Int(1)]).unwrap_err().kind, "TypeError");
    assert_eq!(pyjit_runtime::abi::live_tensor_count(), t0);
}

/// `out[i, j]` in loops over the sizes `out` was created with needs no bounds check (the sizes
/// of `torch.zeros([n, m])` are `n` and `m`); a list changed before the tensor is made, or a
/// loop over the other size, keeps the check and raises PyTorch's IndexError.
#[test]
fn stores_into_a_tensor_made_from_a_size_list() {
    // Its tensors count in the global live-reference counters the other tests compare.
    let _g = serial();
    use pyjit::api::{CompileOptions, Function, Source, Value as V};
    let src = Source::new(
        "made.py",
        "\
import torch
from torch import Tensor

def fill(n: int, m: int) -> Tensor:
    out = torch.zeros([n, m], dtype=torch.int64)
    for i in range(n):
        for j in range(m):
            out[i, j] = i * m + j
    return out

def shrunk(n: int) -> Tensor:
    s = [n, n]
    s[0] = 1
    out = torch.zeros(s)
    for i in range(n):
        out[i, 0] = 1.0
    return out

def swapped(n: int, m: int) -> Tensor:
    out = torch.zeros([n, m])
    for i in range(m):
        out[i, 0] = 1.0
    return out
",
    );
    let f = |name: &str| Function::script(&src, name, &CompileOptions::default()).unwrap();
    let fill = f("fill");
    for (n, m) in [(3, 4), (0, 2), (2, 0), (1, 1)] {
        let Ok(V::Tensor(t)) = fill.call(vec![V::Int(n), V::Int(m)], vec![]) else {
            panic!("fill({n}, {m})");
        };
        assert_eq!(t.shape(), [n as usize, m as usize]);
        let want: Vec<i64> = (0..n * m).collect();
        assert_eq!(t.to_vec::<i64>(), want, "fill({n}, {m})");
    }
    let e = f("shrunk").call(vec![V::Int(3)], vec![]).unwrap_err();
    assert_eq!(e.python_class(), "IndexError", "{e}");
    assert!(e.to_string().contains("made.py:16:"), "{e}");
    let swapped = f("swapped");
    let e = swapped
        .call(vec![V::Int(2), V::Int(3)], vec![])
        .unwrap_err();
    assert_eq!(e.python_class(), "IndexError", "{e}");
    assert!(swapped.call(vec![V::Int(3), V::Int(2)], vec![]).is_ok());
}
