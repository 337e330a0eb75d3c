//! ARG parsing (`pyjit run` arguments and `args.txt` lines): any text parses or gives an error,
//! and what parses fits (or misfits) every parameter type without a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pyjit::Type;
use pyjit::args::{fit_arg, parse_arg, split_words};
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = split_words(&text);
    let Ok(lit) = parse_arg(&text) else {
        return;
    };
    // What parses prints back to an ARG that parses to the same value.
    let shown = lit.to_string();
    let again = parse_arg(&shown).unwrap_or_else(|e| panic!("{shown:?} does not parse: {e}"));
    assert_eq!(format!("{again:?}"), format!("{lit:?}"), "{shown:?}");
    let types = [
        Type::Int,
        Type::Float,
        Type::Bool,
        Type::list(Type::Int),
        Type::list(Type::list(Type::Float)),
        Type::Tuple(vec![Type::Int, Type::optional(Type::Float)]),
        Type::optional(Type::Int),
    ];
    for ty in &types {
        let _ = fit_arg(&lit, ty, "p", Path::new("nonexistent-fuzz-dir"));
    }
});
