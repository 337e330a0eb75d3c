//! Lexer + parser: any bytes parse to an AST or to diagnostics inside the file, never a panic;
//! an AST unparses and the unparsed text parses again.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pyjit_syntax::SourceFile;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let file = SourceFile::new("fuzz.py", text.as_ref());
    match pyjit_syntax::parse_module(&file) {
        Ok(module) => {
            let again = pyjit_syntax::unparse(&module);
            let f2 = SourceFile::new("unparsed.py", again.as_str());
            if let Err(d) = pyjit_syntax::parse_module(&f2) {
                panic!(
                    "unparsed text does not parse: {d:?}\n--- input\n{text}\n--- unparsed\n{again}"
                );
            }
        }
        Err(diags) => {
            for d in diags {
                let _ = d.render(&file);
            }
        }
    }
});
