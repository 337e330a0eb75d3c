//! The interpreter on hand-written IR: control flow, calls and recursion, lists and aliasing,
//! tensor ops, printing, and errors (class, message and span).

use pyjit_interp::{Config, InterpError, Interpreter, Value};
use pyjit_ir::{Module, parse_module, verify_module};
use pyjit_runtime::Tensor;

fn module(text: &str) -> Module {
    let m = parse_module(text).unwrap_or_else(|e| panic!("{e}"));
    verify_module(&m).unwrap_or_else(|e| panic!("{e:?}"));
    m
}

fn run_with(
    m: &Module,
    name: &str,
    args: Vec<Value>,
    config: Config,
) -> (Result<Value, InterpError>, String) {
    let id = m.function_by_name(name).expect("function exists");
    let mut out = Vec::new();
    let r = Interpreter::new(m, config, &mut out).call(id, args);
    (r, String::from_utf8(out).unwrap())
}

fn run(m: &Module, name: &str, args: Vec<Value>) -> Result<Value, InterpError> {
    run_with(m, name, args, Config::default()).0
}

fn int(v: Result<Value, InterpError>) -> i64 {
    match v {
        Ok(Value::Int(i)) => i,
        other => panic!("expected an int, got {other:?}"),
    }
}

/// The `file:line:col` an error points at.
fn location(m: &Module, e: &InterpError) -> String {
    m.source
        .as_ref()
        .expect("parsed IR has a source")
        .location(e.span)
}

const SUM_TO: &str = r#"
func @sum_to(%n: int) -> int {
  %0: bool = const true
  %1: int = const 0
  %2: int = loop(%n, %0, %1) body(%i: int, %acc: int) {
    %3: int = int.add(%acc, %i)
    %4: bool = const true
    yield %4, %3
  }
  return %2
}
"#;

#[test]
fn for_loop_over_range() {
    let m = module(SUM_TO);
    assert_eq!(int(run(&m, "sum_to", vec![Value::Int(10)])), 45);
    assert_eq!(int(run(&m, "sum_to", vec![Value::Int(0)])), 0);
    // A negative trip count runs zero iterations.
    assert_eq!(int(run(&m, "sum_to", vec![Value::Int(-5)])), 0);
}

#[test]
fn while_loop_with_data_dependent_trip_count() {
    // Collatz steps: while n != 1 (the body yields the recomputed condition).
    let m = module(
        r#"
func @collatz(%n: int) -> int {
  %0: int = const 9223372036854775807
  %1: int = const 1
  %2: bool = int.ne(%n, %1)
  %3: int = const 0
  %4: int, %5: int = loop(%0, %2, %n, %3) body(%i: int, %x: int, %steps: int) {
    %6: int = const 2
    %7: int = int.mod(%x, %6)
    %8: int = const 0
    %9: bool = int.eq(%7, %8)
    %10: int = if %9 {
      %11: int = int.floordiv(%x, %6)
      yield %11
    } else {
      %12: int = const 3
      %13: int = int.mul(%x, %12)
      %14: int = const 1
      %15: int = int.add(%13, %14)
      yield %15
    }
    %16: int = const 1
    %17: int = int.add(%steps, %16)
    %18: bool = int.ne(%10, %16)
    yield %18, %10, %17
  }
  return %5
}
"#,
    );
    assert_eq!(int(run(&m, "collatz", vec![Value::Int(27)])), 111);
    assert_eq!(int(run(&m, "collatz", vec![Value::Int(1)])), 0);
}

const FIB: &str = r#"
func @fib(%n: int) -> int {  # fib.py:1:1
  %0: int = const 2  # fib.py:2:12
  %1: bool = int.lt(%n, %0)  # fib.py:2:8
  %2: int = if %1 {  # fib.py:2:5
    yield %n  # fib.py:3:9
  } else {
    %3: int = const 1  # fib.py:4:20
    %4: int = int.sub(%n, %3)  # fib.py:4:16
    %5: int = call @fib(%4)  # fib.py:4:12
    %6: int = int.sub(%n, %0)  # fib.py:4:30
    %7: int = call @fib(%6)  # fib.py:4:26
    %8: int = int.add(%5, %7)  # fib.py:4:12
    yield %8  # fib.py:4:5
  }
  return %2  # fib.py:2:5
}
"#;

#[test]
fn recursion() {
    let m = module(FIB);
    assert_eq!(int(run(&m, "fib", vec![Value::Int(15)])), 610);
}

#[test]
fn recursion_depth_is_a_recursion_error_not_a_crash() {
    let m = module(
        r#"
func @down(%n: int) -> int {  # d.py:1:1
  %0: int = const 1  # d.py:2:20
  %1: int = int.sub(%n, %0)  # d.py:2:16
  %2: int = call @down(%1)  # d.py:2:12
  return %2  # d.py:2:5
}
"#,
    );
    // `down(n)` with a call-depth limit of `limit`.
    let down_within = |n: i64, limit: usize| {
        let config = Config {
            max_call_depth: limit,
            ..Config::default()
        };
        run_with(&m, "down", vec![Value::Int(n)], config).0
    };
    let e = down_within(5, 100).unwrap_err();
    assert_eq!(e.kind, "RecursionError");
    assert_eq!(
        e.message,
        "maximum recursion depth exceeded while calling a Python object"
    );
    assert_eq!(e.call_stack.len(), 100);
    let source = m.source.as_ref().unwrap();
    assert_eq!(source.location(e.call_stack[0].span), "d.py:2:12");
    // The default limit (1000, like Python's) is reached without overflowing the native stack,
    // and a much deeper limit too: the stack grows on demand.
    assert_eq!(
        run(&m, "down", vec![Value::Int(0)]).unwrap_err().kind,
        "RecursionError"
    );
    assert_eq!(down_within(0, 20_000).unwrap_err().call_stack.len(), 20_000);
}

#[test]
fn errors_carry_class_message_and_span() {
    let m = module(
        r#"
func @div(%a: int, %b: int) -> int {  # e.py:1:1
  %0: int = int.floordiv(%a, %b)  # e.py:2:12
  return %0  # e.py:2:5
}
func @checked(%x: int) -> int {  # e.py:4:1
  %0: int = const 0  # e.py:5:16
  %1: bool = int.gt(%x, %0)  # e.py:5:12
  %2: str = const "x must be positive"  # e.py:5:19
  check[AssertionError](%1, %2)  # e.py:5:5
  %3: str = const "boom"  # e.py:6:22
  %4: int = const 7  # e.py:6:5
  %5: bool = int.eq(%x, %4)  # e.py:6:5
  %6: int = if %5 {  # e.py:6:5
    raise[ValueError](%3)  # e.py:6:5
  } else {
    yield %x  # e.py:6:5
  }
  return %6  # e.py:7:5
}
func @idx(%i: int) -> int {  # e.py:9:1
  %0: int = const 1  # e.py:10:10
  %1: int = const 2  # e.py:10:13
  %2: List[int] = list.new(%0, %1)  # e.py:10:9
  %3: int = list.get(%2, %i)  # e.py:11:12
  return %3  # e.py:11:5
}
"#,
    );
    let e = run(&m, "div", vec![Value::Int(1), Value::Int(0)]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "ZeroDivisionError: integer division or modulo by zero"
    );
    assert_eq!(location(&m, &e), "e.py:2:12");
    assert!(!e.raised_by_program);

    let e = run(&m, "checked", vec![Value::Int(-1)]).unwrap_err();
    assert_eq!(e.to_string(), "AssertionError: x must be positive");
    assert_eq!(location(&m, &e), "e.py:5:5");
    assert!(e.raised_by_program);
    let e = run(&m, "checked", vec![Value::Int(7)]).unwrap_err();
    assert_eq!(e.to_string(), "ValueError: boom");
    assert_eq!(int(run(&m, "checked", vec![Value::Int(3)])), 3);

    assert_eq!(int(run(&m, "idx", vec![Value::Int(-1)])), 2);
    let e = run(&m, "idx", vec![Value::Int(2)]).unwrap_err();
    assert_eq!(e.to_string(), "IndexError: list index out of range");
    assert_eq!(location(&m, &e), "e.py:11:12");
    // The interpreter is reusable after an error.
    assert_eq!(int(run(&m, "div", vec![Value::Int(-7), Value::Int(2)])), -4);
}

#[test]
fn lists_alias_like_python() {
    // b = a; b.append(3); a[0] = 10; return len(a) * 100 + a[0] + b[2]
    let m = module(
        r#"
func @alias() -> int {
  %0: int = const 1
  %1: List[int] = list.new(%0)
  %2: int = const 3
  list.append(%1, %2)
  %3: int = const 0
  %4: int = const 10
  list.set(%1, %3, %4)
  %5: int = list.len(%1)
  %6: int = const 100
  %7: int = int.mul(%5, %6)
  %8: int = list.get(%1, %3)
  %9: int = int.add(%7, %8)
  %10: int = const 1
  %11: int = list.get(%1, %10)
  %12: int = int.add(%9, %11)
  return %12
}
"#,
    );
    assert_eq!(int(run(&m, "alias", vec![])), 213);
    // A list passed in is mutated in place, visible to the caller.
    let m = module(
        r#"
func @push(%l: List[int]) -> None {
  %0: int = const 5
  list.append(%l, %0)
  %1: None = const none
  return %1
}
"#,
    );
    let l = Value::list(vec![Value::Int(1)]);
    run(&m, "push", vec![l.clone()]).unwrap();
    match l {
        Value::List(l) => assert_eq!(l.len(), 2),
        _ => unreachable!(),
    }
}

#[test]
fn tensor_ops_print_and_scalar_conversion() {
    let m = module(
        r#"
func @f(%x: Tensor, %k: float) -> Tuple[Tensor, float] {
  %0: Tensor = tensor.mul.Scalar(%x, %k)
  %1: None = const none
  %2: Tensor = tensor.sum(%0, %1)
  %3: float = tensor.Float.Tensor(%2)
  %4: str = const "total:"
  print(%4, %3, %0)
  %5: Tuple[Tensor, float] = tuple.new(%0, %3)
  return %5
}
"#,
    );
    let x = Tensor::from_vec(vec![1.0f32, 2.0], &[2]).unwrap();
    let (r, out) = run_with(
        &m,
        "f",
        vec![Value::Tensor(x), Value::Float(2.0)],
        Config::default(),
    );
    assert_eq!(out, "total: 6.0 tensor([2., 4.])\n");
    match r.unwrap() {
        Value::Tuple(items) => {
            assert_eq!(
                items[0].as_tensor().unwrap().to_vec::<f32>(),
                vec![2.0, 4.0]
            );
            assert_eq!(items[1].as_float(), Some(6.0));
        }
        other => panic!("{other:?}"),
    }
    // A runtime error inside a tensor op keeps PyTorch's wording and the op's class.
    let m = module(
        r#"
func @g(%a: Tensor, %b: Tensor) -> Tensor {  # g.py:1:1
  %0: int = const 1  # g.py:2:12
  %1: Tensor = tensor.add.Tensor(%a, %b, %0)  # g.py:2:12
  return %1  # g.py:2:5
}
"#,
    );
    let a = Tensor::from_vec(vec![1.0f32, 2.0, 3.0], &[3]).unwrap();
    let b = Tensor::from_vec(vec![1.0f32, 2.0], &[2]).unwrap();
    let e = run(&m, "g", vec![Value::Tensor(a), Value::Tensor(b)]).unwrap_err();
    assert_eq!(e.kind, "RuntimeError");
    assert!(e.message.contains("must match the size of tensor b"), "{e}");
    assert_eq!(location(&m, &e), "g.py:2:12");
}

#[test]
fn python_float_semantics_and_messages() {
    let m = module(
        r#"
func @fd(%a: float, %b: float) -> float {
  %0: float = float.floordiv(%a, %b)
  return %0
}
func @truediv(%a: int, %b: int) -> float {
  %0: float = int.truediv(%a, %b)
  return %0
}
"#,
    );
    assert_eq!(
        run(&m, "fd", vec![Value::Float(7.5), Value::Float(-2.0)])
            .unwrap()
            .as_float(),
        Some(-4.0)
    );
    assert_eq!(
        run(&m, "fd", vec![Value::Float(1.0), Value::Float(0.0)])
            .unwrap_err()
            .to_string(),
        "ZeroDivisionError: float floor division by zero"
    );
    // Python words int / int by zero differently from float / float.
    assert_eq!(
        run(&m, "truediv", vec![Value::Int(1), Value::Int(0)])
            .unwrap_err()
            .to_string(),
        "ZeroDivisionError: division by zero"
    );
}

#[test]
fn type_checking_catches_a_wrong_refinement() {
    // A refined type that does not hold (the argument is float32, the IR claims int64) is
    // reported when types are checked, and ignored otherwise.
    let m = module(
        r#"
func @f(%x: Tensor[int64, 1]) -> Tensor[int64, 1] {
  %0: int = const 1
  %1: Tensor[int64, 1] = tensor.mul.Scalar(%x, %0)
  return %1
}
func @g(%x: Tensor) -> Tensor[int64, 1] {
  %0: int = const 1
  %1: Tensor[int64, 1] = tensor.mul.Scalar(%x, %0)
  return %1
}
"#,
    );
    let x = || Value::Tensor(Tensor::from_vec(vec![1.0f32], &[1]).unwrap());
    let checked = Config {
        check_types: true,
        ..Config::default()
    };
    assert!(run(&m, "g", vec![x()]).is_ok());
    let (r, _) = run_with(&m, "g", vec![x()], checked.clone());
    let e = r.unwrap_err();
    assert_eq!(e.kind, pyjit_interp::ExcKind::Internal);
    assert!(e.message.contains("Tensor[float32, [1]]"), "{e}");
    let (r, _) = run_with(&m, "f", vec![x()], checked.clone());
    assert!(r.unwrap_err().message.contains("does not fit"));
    let ints = Value::Tensor(Tensor::from_vec(vec![3i64], &[1]).unwrap());
    assert!(run_with(&m, "f", vec![ints], checked).0.is_ok());
}

#[test]
fn failed_guard_is_flagged_for_retracing() {
    let m = module(
        r#"
func @g(%n: int) -> int {
  guard[3, "n was 3 when traced"](%n)
  return %n
}
"#,
    );
    assert_eq!(int(run(&m, "g", vec![Value::Int(3)])), 3);
    let e = run(&m, "g", vec![Value::Int(4)]).unwrap_err();
    assert!(e.is_guard_failure());
    assert_eq!(e.message, "n was 3 when traced");
}
