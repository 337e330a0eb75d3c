//! The script frontend: any source compiles to verified IR or to diagnostics, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pyjit::{Program, SourceFile};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let file = SourceFile::new("fuzz.py", text.as_ref());
    if let Err(diags) = Program::compile(file.clone()) {
        for d in diags {
            let _ = d.render(&file);
        }
    }
});
