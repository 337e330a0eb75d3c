//! Print → parse round trips of the IR the script frontend produces for every program of
//! `tests/programs/` (issue 4's "print→parse round trips for the whole corpus"): through the
//! synthetic source and through the real one, the text is a fixed point, the parsed module
//! verifies, and locations map back to the same source positions.

use pyjit_ir::{parse_module, parse_module_with_source, print_module, verify_module};
use pyjit_syntax::SourceFile;
use std::path::PathBuf;
use std::sync::Arc;

#[test]
fn corpus_round_trips() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/programs");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/programs exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
        .collect();
    files.sort();
    let mut scripted = 0;
    let mut failures = Vec::new();
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(path).unwrap();
        let src = Arc::new(SourceFile::new(name.clone(), text));
        // Programs the frontend rejects are its tests' business; here only the IR matters.
        let Ok(mut m) = pyjit_script::script_source(&src) else {
            continue;
        };
        m.source = Some(src.clone());
        scripted += 1;
        let printed = print_module(&m);
        let check = |label: &str, parsed: Result<pyjit_ir::Module, pyjit_ir::ParseError>| {
            let p = match parsed {
                Ok(p) => p,
                Err(e) => return Some(format!("{name} ({label}): parse error {e}")),
            };
            if let Err(e) = verify_module(&p) {
                return Some(format!("{name} ({label}): verifier {e:?}"));
            }
            let again = print_module(&p);
            (again != printed)
                .then(|| format!("{name} ({label}): not a fixed point:\n{printed}\n---\n{again}"))
        };
        failures.extend(check("synthetic source", parse_module(&printed)));
        failures.extend(check(
            "real source",
            parse_module_with_source(&printed, src.clone()),
        ));
        // Locations map back onto the same line and column of the real file.
        if let Ok(p) = parse_module_with_source(&printed, src.clone()) {
            for (id, f) in &m.funcs {
                let g = &p.funcs[id];
                let before: Vec<_> = f
                    .all_ops()
                    .iter()
                    .map(|&o| src.line_col(f.op(o).span.start))
                    .collect();
                let after: Vec<_> = g
                    .all_ops()
                    .iter()
                    .map(|&o| src.line_col(g.op(o).span.start))
                    .collect();
                if before != after {
                    failures.push(format!("{name}: locations of @{} moved", f.name));
                }
            }
        }
    }
    assert!(scripted >= 100, "only {scripted} corpus programs scripted");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
