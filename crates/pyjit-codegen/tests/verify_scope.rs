//! Codegen verifies the functions it compiles (those its roots reach), and only those.

use pyjit_codegen::{CodegenError, NativeModule, Options, Value};
use pyjit_ir::parse_module;

const SRC: &str = "func @f(%x: int) -> int {
  %one: int = const 1
  %y: int = int.add(%x, %one)
  return %y
}

func @g(%x: int) -> int {
  return %x
}
";

/// The module with `@g`'s body emptied (no terminator: invalid IR).
fn broken_g() -> pyjit_ir::Module {
    let mut m = parse_module(SRC).unwrap();
    let g = m.function_by_name("g").unwrap();
    let f = m.func_mut(g);
    let body = f.body;
    f.regions[body].ops.clear();
    assert!(pyjit_ir::verify_module(&m).is_err());
    m
}

#[test]
fn an_invalid_function_that_is_compiled_is_rejected() {
    let m = broken_g();
    match NativeModule::compile(&m, &Options::default()) {
        Err(CodegenError::Verify(msg)) => assert!(msg.contains("func: \"g\""), "{msg}"),
        Err(e) => panic!("expected a verify error, got {e}"),
        Ok(_) => panic!("invalid IR compiled"),
    }
}

#[test]
fn an_invalid_function_no_root_reaches_is_not_compiled_nor_checked() {
    let m = broken_g();
    let f = m.function_by_name("f").unwrap();
    let options = Options {
        roots: Some(vec![f]),
        ..Options::default()
    };
    let native = NativeModule::compile(&m, &options).unwrap();
    let got = native
        .function("f")
        .unwrap()
        .call_with_output(&[Value::Int(41)], &mut std::io::sink());
    assert!(matches!(got, Ok(Value::Int(42))), "{got:?}");
}
