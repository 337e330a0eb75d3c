//! Scalar code, control flow and calls: native results equal the interpreter's.

#[path = "native_common/mod.rs"]
mod common;
use common::*;
use pyjit_codegen::Value;

#[test]
fn collatz() {
    let m = script(COLLATZ);
    let nm = native(&m);
    for n in [0, 1, 2, 10, 1000] {
        check_same(&m, &nm, "scalar_loop", &[Value::Int(n)]);
    }
    let f = nm.function("scalar_loop").unwrap();
    assert!(matches!(
        f.call(&[Value::Int(100_000)]),
        Ok(Value::Int(10_753_712))
    ));
}

const ARITH: &str = "\
import math

def divmod_var(a: int, b: int) -> Tuple[int, int]:
    return a // b, a % b

def divmod_const(a: int) -> Tuple[int, int, int, int, int, int, int, int]:
    return a // 2, a % 2, a // 8, a % 8, a // 7, a % 7, a // -3, a % -3

def shifts(a: int, b: int) -> Tuple[int, int, int]:
    return a << b, a >> b, a ** b

def floats(x: float, y: float) -> Tuple[float, float, float, float, bool, bool]:
    return x // y, x % y, x ** y, x / y, x < y, x != y

def conv(x: float) -> Tuple[int, bool, int, int, float]:
    return int(x), bool(x), math.floor(x), round(x), math.sqrt(abs(x))

def bools(p: bool, q: bool) -> Tuple[bool, bool, bool, int, float]:
    return p and q, p or not q, p != q, int(p), float(q)
";

#[test]
fn python_arithmetic_semantics() {
    let m = script(&format!("from typing import Tuple\n{ARITH}"));
    let nm = native(&m);
    let ints = [i64::MIN, i64::MIN + 1, -7, -2, -1, 0, 1, 2, 7, 64, i64::MAX];
    for &a in &ints {
        check_same(&m, &nm, "divmod_const", &[Value::Int(a)]);
        for &b in &ints {
            check_same(&m, &nm, "divmod_var", &[Value::Int(a), Value::Int(b)]);
            if (-3..70).contains(&b) {
                check_same(&m, &nm, "shifts", &[Value::Int(a), Value::Int(b)]);
            }
        }
    }
    let fl = [
        f64::NEG_INFINITY,
        -7.5,
        -2.0,
        -0.0,
        0.0,
        0.5,
        2.0,
        7.5,
        1e300,
        f64::INFINITY,
        f64::NAN,
    ];
    for &x in &fl {
        check_same(&m, &nm, "conv", &[Value::Float(x)]);
        for &y in &fl {
            check_same(&m, &nm, "floats", &[Value::Float(x), Value::Float(y)]);
        }
    }
    for p in [false, true] {
        for q in [false, true] {
            check_same(&m, &nm, "bools", &[Value::Bool(p), Value::Bool(q)]);
        }
    }
}

#[test]
fn recursion_and_tuples_across_calls() {
    let src = "\
from typing import Tuple

def fib(n: int) -> int:
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)

def minmax(a: int, b: int, c: float) -> Tuple[int, int, float]:
    if a < b:
        return a, b, c
    return b, a, -c

def use_minmax(a: int, b: int) -> float:
    lo, hi, c = minmax(a, b, 1.5)
    return float(hi - lo) * c
";
    let m = script(src);
    let nm = native(&m);
    for n in [0, 1, 2, 10, 20] {
        check_same(&m, &nm, "fib", &[Value::Int(n)]);
    }
    assert!(matches!(
        nm.function("fib").unwrap().call(&[Value::Int(25)]),
        Ok(Value::Int(75025))
    ));
    check_same(&m, &nm, "use_minmax", &[Value::Int(3), Value::Int(-4)]);
    check_same(&m, &nm, "use_minmax", &[Value::Int(-3), Value::Int(4)]);
}
