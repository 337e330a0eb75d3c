//! Print/parse round trips over every file of tests/ir/roundtrip/: each file must parse, verify,
//! and print back to exactly its own text (the files are written in the printer's canonical form),
//! and printing must be a fixed point of parse∘print.

use pyjit_ir::{builtin_op_names, parse_module, print_module, verify_module};
use std::collections::BTreeSet;
use std::path::PathBuf;

fn roundtrip_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/ir/roundtrip")
}

#[test]
fn roundtrip_files() {
    let mut files: Vec<_> = std::fs::read_dir(roundtrip_dir())
        .expect("tests/ir/roundtrip exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ir"))
        .collect();
    files.sort();
    assert!(
        files.len() >= 10,
        "expected at least 10 round-trip files, found {}",
        files.len()
    );
    let bless = std::env::var_os("PYJIT_BLESS").is_some();
    let mut failures = Vec::new();
    let mut seen = BTreeSet::new();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let m = match parse_module(&text) {
            Ok(m) => m,
            Err(e) => {
                failures.push(format!("{}: parse error {e}", path.display()));
                continue;
            }
        };
        if let Err(errs) = verify_module(&m) {
            failures.push(format!("{}: verifier: {errs:?}", path.display()));
            continue;
        }
        for f in m.funcs.values() {
            for op in f.all_ops() {
                seen.insert(f.op(op).kind.name());
            }
        }
        let printed = print_module(&m);
        let again = print_module(&parse_module(&printed).expect("printed IR parses"));
        if again != printed {
            failures.push(format!(
                "{}: print is not a fixed point:\n{printed}\n---\n{again}",
                path.display()
            ));
        }
        if printed != text {
            if bless {
                std::fs::write(path, &printed).unwrap();
            } else {
                failures.push(format!(
                    "{}: not in canonical form (PYJIT_BLESS=1 rewrites it):\n{printed}",
                    path.display()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    // The corpus exercises every builtin op kind at least once.
    let missing: Vec<String> = builtin_op_names()
        .into_iter()
        .filter(|n| !seen.contains(n))
        .collect();
    assert!(
        missing.is_empty(),
        "op kinds missing from tests/ir/roundtrip: {missing:?}"
    );
}
