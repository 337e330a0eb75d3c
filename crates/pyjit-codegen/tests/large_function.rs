//! A function past `SINGLE_PASS_REGALLOC_OPS` (compiled with the single-pass register allocator)
//! computes what the IR says: many values live at once, each used again far from its
//! definition.

use pyjit_codegen::{NativeModule, Options, SINGLE_PASS_REGALLOC_OPS, Value};
use pyjit_ir::parse_module;

/// `v[i] = (v[i-1] + v[i/2]) % m` for `i` in `1..n`, `v[0] = x`; returns `v[n-1]`.
fn chain(n: usize) -> String {
    let mut s = String::from(
        "func @f(%x: int) -> int {\n  %m: int = const 1000003\n  %v0: int = int.mod(%x, %m)\n",
    );
    for i in 1..n {
        s.push_str(&format!(
            "  %s{i}: int = int.add(%v{}, %v{})\n  %v{i}: int = int.mod(%s{i}, %m)\n",
            i - 1,
            i / 2
        ));
    }
    s.push_str(&format!("  return %v{}\n}}\n", n - 1));
    s
}

fn expected(x: i64, n: usize) -> i64 {
    let mut v = vec![x.rem_euclid(1_000_003)];
    for i in 1..n {
        v.push((v[i - 1] + v[i / 2]).rem_euclid(1_000_003));
    }
    v[n - 1]
}

#[test]
fn a_function_past_the_single_pass_threshold_computes_the_same() {
    let n = SINGLE_PASS_REGALLOC_OPS / 2 + 100;
    let m = parse_module(&chain(n)).unwrap();
    // Without Cranelift's verifier, which debug builds run and which costs most of the time here.
    let options = Options {
        verify: false,
        ..Options::default()
    };
    let native = NativeModule::compile(&m, &options).unwrap();
    let f = native.function("f").unwrap();
    for x in [0, 7, 123_456_789] {
        let got = f.call_with_output(&[Value::Int(x)], &mut std::io::sink());
        match got {
            Ok(Value::Int(v)) => assert_eq!(v, expected(x, n), "x = {x}"),
            other => panic!("x = {x}: {other:?}"),
        }
    }
}
