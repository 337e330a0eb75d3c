//! Helpers shared by the syntax test files.
#![allow(dead_code)]

use pyjit_syntax::{Diagnostic, SourceFile, parse_module};
use std::path::PathBuf;

/// `tests/syntax/` at the workspace root.
pub fn syntax_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/syntax")
}

/// Every `.py` file of the corpus, sorted by name.
pub fn corpus() -> Vec<(String, String)> {
    let dir = syntax_dir().join("corpus");
    let mut files: Vec<(String, String)> = std::fs::read_dir(&dir)
        .expect("tests/syntax/corpus exists")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "py"))
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            let text = std::fs::read_to_string(&p).expect("corpus files are UTF-8");
            (name, text)
        })
        .collect();
    files.sort();
    files
}

/// Asserts the invariants every diagnostic keeps: a primary label whose span lies in the text.
pub fn check_spans(file: &SourceFile, diags: &[Diagnostic]) {
    assert!(
        !diags.is_empty(),
        "an error result carries at least one diagnostic"
    );
    for d in diags {
        let primary = d
            .primary_span()
            .unwrap_or_else(|| panic!("no primary label: {d:?}"));
        for l in &d.labels {
            assert!(
                l.span.start <= l.span.end && l.span.end as usize <= file.text.len(),
                "label span {:?} outside text of length {}: {d:?}",
                l.span,
                file.text.len()
            );
        }
        assert!(file.text.is_char_boundary(primary.start as usize));
    }
}

/// Parses and renders every diagnostic (the text snapshot tests compare).
pub fn render_errors(name: &str, src: &str) -> String {
    let file = SourceFile::new(format!("{name}.py"), src);
    match parse_module(&file) {
        Ok(m) => panic!(
            "{name}: expected a syntax error, got\n{}",
            pyjit_syntax::dump(&m)
        ),
        Err(diags) => {
            check_spans(&file, &diags);
            diags.iter().map(|d| d.render(&file)).collect()
        }
    }
}
