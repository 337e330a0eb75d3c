//! `Options::roots`: only the roots are callable, and a root's callees (reached through calls)
//! are compiled and run; functions nobody among them calls are not compiled.

use pyjit_codegen::{NativeModule, Options, Value};
use pyjit_ir::parse_module;

const SRC: &str = "
func @leaf(%x: int) -> int {
  %a: int = const 3
  %b: int = int.mul(%x, %a)
  return %b
}

func @mid(%x: int) -> int {
  %r: int = call @leaf(%x)
  %one: int = const 1
  %s: int = int.add(%r, %one)
  return %s
}

func @other(%x: int) -> int {
  %a: int = const 100
  %b: int = int.add(%x, %a)
  return %b
}
";

fn run(native: &NativeModule, name: &str, x: i64) -> i64 {
    let f = native.function(name).unwrap();
    match f.call_with_output(&[Value::Int(x)], &mut std::io::sink()) {
        Ok(Value::Int(v)) => v,
        other => panic!("{name}({x}): {other:?}"),
    }
}

#[test]
fn only_roots_are_callable_and_their_callees_run() {
    let m = parse_module(SRC).unwrap();
    let mid = m.function_by_name("mid").unwrap();
    let other = m.function_by_name("other").unwrap();
    let options = Options {
        roots: Some(vec![mid, mid]),
        ..Options::default()
    };
    let native = NativeModule::compile(&m, &options).unwrap();
    assert_eq!(run(&native, "mid", 5), 16);
    assert!(native.function_by_id(mid).is_some());
    // `leaf` is compiled (mid calls it) but not a root; `other` is not compiled at all.
    assert!(native.function("leaf").is_err());
    assert!(native.function_by_id(other).is_none());

    // Without roots every function is callable.
    let all = NativeModule::compile(&m, &Options::default()).unwrap();
    assert_eq!(run(&all, "leaf", 5), 15);
    assert_eq!(run(&all, "other", 5), 105);
    assert_eq!(run(&all, "mid", 5), 16);
}

#[test]
fn a_root_that_is_not_a_function_is_an_error() {
    let m = parse_module(SRC).unwrap();
    let mut bigger = m.clone();
    let extra = bigger.clone_function(m.function_by_name("leaf").unwrap(), "extra");
    let options = Options {
        roots: Some(vec![extra]),
        ..Options::default()
    };
    assert!(NativeModule::compile(&m, &options).is_err());
}
