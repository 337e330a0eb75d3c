//! IR-in/IR-out tests of signature specialization. Each file of `tests/specialize/` holds the
//! function to specialize (the first one) and a function `@signature` whose parameter types are
//! the call signature. The expected output is the file `NAME.expected`: the specialized function
//! as the printer writes it, checked for verification too. `PYJIT_BLESS=1` rewrites the
//! expectations (review the diff).

use pyjit_ir::{FuncId, parse_module, print_function, verify_module};
use std::path::PathBuf;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/specialize")
}

#[test]
fn specialize_files() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ir"))
        .collect();
    files.sort();
    assert!(files.len() >= 4, "expected the specialization test files");
    let bless = std::env::var_os("PYJIT_BLESS").is_some();
    let mut failures = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let m = parse_module(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        verify_module(&m)
            .unwrap_or_else(|e| panic!("{}: input does not verify: {e:?}", path.display()));
        let sig = m
            .function_by_name("signature")
            .expect("a @signature function");
        let types = m.func(sig).param_types();
        let id = FuncId::from_u32(0);
        let spec = pyjit_opt::specialize(&m, id, &types)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut out = m.clone();
        *out.func_mut(id) = spec;
        if let Err(e) = verify_module(&out) {
            failures.push(format!(
                "{}: specialized IR does not verify: {e:?}",
                path.display()
            ));
            continue;
        }
        let printed = print_function(&out, id);
        let expected_path = path.with_extension("expected");
        let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
        if printed != expected {
            if bless {
                std::fs::write(&expected_path, &printed).unwrap();
            } else {
                failures.push(format!(
                    "{}: specialized IR differs (PYJIT_BLESS=1 rewrites):\n--- got\n{printed}--- expected\n{expected}",
                    path.display()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn signature_must_fit_the_parameters() {
    let m = parse_module("func @f(%x: Tensor, %n: int) -> Tensor {\n  return %x\n}\n").unwrap();
    let id = FuncId::from_u32(0);
    let err =
        pyjit_opt::specialize(&m, id, &[pyjit_ir::Type::Float, pyjit_ir::Type::Int]).unwrap_err();
    assert!(err.0.contains("parameter `x`"), "{err}");
    assert!(pyjit_opt::specialize(&m, id, &[pyjit_ir::Type::tensor()]).is_err());
}

#[test]
fn join_keeps_only_shared_facts() {
    use pyjit_ir::{DType, TensorType, Type};
    let a = Type::Tensor(TensorType::shaped(
        Some(DType::Float32),
        vec![Some(2), Some(3)],
    ));
    let b = Type::Tensor(TensorType::shaped(
        Some(DType::Float32),
        vec![Some(2), Some(4)],
    ));
    assert_eq!(
        pyjit_opt::join(&a, &b),
        Some(Type::Tensor(TensorType::shaped(
            Some(DType::Float32),
            vec![Some(2), None]
        )))
    );
    let c = Type::Tensor(TensorType::ranked(Some(DType::Int64), 1));
    assert_eq!(pyjit_opt::join(&a, &c), Some(Type::tensor()));
    assert_eq!(pyjit_opt::join(&Type::Int, &Type::Float), None);
}
