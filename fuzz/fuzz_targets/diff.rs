//! Differential: a well-typed program generated from the bytes runs on the interpreter at -O0
//! (the oracle), natively at -O2, eagerly and traced; all four must agree (value or exception
//! class).
#![no_main]

use arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    if let Ok(p) = pyjit_fuzz::generate(&mut u) {
        pyjit_fuzz::differential(&p);
    }
});
