//! Scalar code, control flow and calls: native results equal the interpreter's.

mod common;
use common::*;
use pyjit_codegen::Value;

const COLLATZ: &str = "\
def scalar_loop(n: int) -> int:
    total = 0
    for i in range(1, n):
        x = i
        while x != 1:
            if x % 2 == 0:
                x = x // 2
            else:
                x = 3 * x + 1
            total += 1
    return total
";

#[test]
fn collatz() {
    let m = script(COLLATZ);
    let nm = native(&m);
    for n in [0, 1, 2, 10, 1000] {
        check_same(&m, &nm, "scalar_loop", &[Value::Int(n)]);
    }
    let f = nm.function("scalar_loop").unwrap();
    assert!(matches!(f.call(&[Value::Int(100_000)]), Ok(Value::Int(10_753_712))));
}
