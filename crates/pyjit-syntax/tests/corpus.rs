//! The corpus under tests/syntax/corpus: every file parses, its AST dump matches the checked-in
//! snapshot, and parse → unparse → parse gives the same tree up to spans.

mod common;

use pyjit_syntax::{SourceFile, dump, parse_module, strip_spans, unparse};

#[test]
fn corpus_is_large_enough() {
    assert!(common::corpus().len() >= 60);
}

#[test]
fn corpus_dumps() {
    let mut failures = Vec::new();
    for (name, text) in common::corpus() {
        let file = SourceFile::new(format!("{name}.py"), text);
        match parse_module(&file) {
            Ok(m) => insta::assert_snapshot!(name.as_str(), dump(&m)),
            Err(ds) => failures.push(ds.iter().map(|d| d.render(&file)).collect::<String>()),
        }
    }
    assert!(
        failures.is_empty(),
        "corpus files failed to parse:\n{}",
        failures.join("\n")
    );
}

#[test]
fn corpus_round_trips() {
    for (name, text) in common::corpus() {
        let file = SourceFile::new(format!("{name}.py"), text);
        let mut first = parse_module(&file).unwrap_or_else(|_| panic!("{name} parses"));
        let printed = unparse(&first);
        let again_file = SourceFile::new(format!("{name}.unparsed.py"), printed.clone());
        let mut second = match parse_module(&again_file) {
            Ok(m) => m,
            Err(ds) => panic!(
                "{name}: unparsed text does not parse:\n{printed}\n{}",
                ds.iter().map(|d| d.render(&again_file)).collect::<String>()
            ),
        };
        strip_spans(&mut first);
        strip_spans(&mut second);
        assert_eq!(
            first, second,
            "{name}: round trip changed the tree; unparsed:\n{printed}"
        );
        // Unparsing is a fixed point after one round.
        assert_eq!(unparse(&second), printed, "{name}: unparse is not stable");
    }
}
