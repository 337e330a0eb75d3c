//! IR text parser + verifier: any text parses to a module or an error, never a panic; a module
//! that verifies prints and parses back to the same text.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok(module) = pyjit_ir::parse_module(&text) else {
        return;
    };
    if pyjit_ir::verify_module(&module).is_ok() {
        let printed = pyjit_ir::print_module(&module);
        let back = pyjit_ir::parse_module(&printed)
            .unwrap_or_else(|e| panic!("printed IR does not parse: {e:?}\n{printed}"));
        assert_eq!(
            pyjit_ir::print_module(&back),
            printed,
            "round trip changed the IR"
        );
    }
});
