//! Property tests: no input makes the front end panic, every error has a valid span, and every
//! accepted input survives parse → unparse → parse unchanged (up to spans).

mod common;

use proptest::prelude::*;
use pyjit_syntax::{SourceFile, parse_module, strip_spans, unparse};

fn check(src: String) -> Result<(), TestCaseError> {
    let file = SourceFile::new("prop.py", src);
    match parse_module(&file) {
        Err(diags) => {
            common::check_spans(&file, &diags);
            for d in &diags {
                // Rendering must not panic either.
                let _ = d.render(&file);
            }
        }
        Ok(mut first) => {
            let printed = unparse(&first);
            let again = SourceFile::new("prop.unparsed.py", printed.clone());
            let mut second = match parse_module(&again) {
                Ok(m) => m,
                Err(ds) => {
                    return Err(TestCaseError::fail(format!(
                        "unparse produced invalid source for {:?}:\n{printed}\n{}",
                        file.text,
                        ds[0].render(&again)
                    )));
                }
            };
            strip_spans(&mut first);
            strip_spans(&mut second);
            prop_assert_eq!(
                first,
                second,
                "round trip of {:?} via {:?}",
                file.text,
                printed
            );
        }
    }
    Ok(())
}

/// Pieces of Python: enough variety that random sequences often form valid statements.
const VOCAB: &[&str] = &[
    "x",
    "y",
    "f",
    "tensor",
    "_",
    "match",
    "1",
    "0",
    "2.5",
    ".5",
    "1e-3",
    "0x1F",
    "3j",
    "1_0",
    "'s'",
    "\"t\"",
    "f'{x}'",
    "b'b'",
    "r'\\d'",
    "'''m\nl'''",
    "True",
    "None",
    "...",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    ":",
    ";",
    ".",
    "=",
    "+",
    "-",
    "*",
    "**",
    "/",
    "//",
    "%",
    "@",
    "<<",
    ">>",
    "&",
    "|",
    "^",
    "~",
    "<",
    ">",
    "==",
    "!=",
    "<=",
    ">=",
    "->",
    ":=",
    "+=",
    "-=",
    "**=",
    "not",
    "and",
    "or",
    "in",
    "is",
    "if",
    "else",
    "elif",
    "for",
    "while",
    "def",
    "return",
    "lambda",
    "yield",
    "await",
    "import",
    "from",
    "as",
    "class",
    "pass",
    "break",
    "del",
    "global",
    "assert",
    "raise",
    "try",
    "except",
    "with",
    "async",
    "\n",
    "\n",
    "\n    ",
    "\n        ",
    "\t",
    "\\\n",
    "# c",
    "# type: int",
    "\r\n",
    "0b12",
    "1__2",
    "'unterminated",
    "$",
    "\"\"\"",
];

fn tokens() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(VOCAB), 0..40).prop_map(|v| v.join(" "))
}

/// Small valid statements glued in random orders and indentations.
fn statements() -> impl Strategy<Value = String> {
    let stmt = prop::sample::select(
        &[
            "x = -y ** 2",
            "return a if b else c",
            "def f(a: int, *b, c=1, **d) -> T:",
            "if not a == b:",
            "for i, j in zip(p, q):",
            "while 0 <= i < n:",
            "x[:, 1:3, None] = t @ u",
            "y += f(*a, k=1, **m)",
            "pass",
            "print(f'{x!r:>{w}} {y=}')",
            "z = [v for v in w if v] + {1: 2, **q}",
            "lambda a, b=2: (a, b)",
            "import a.b as c",
            "from .m import (d, e as f)",
            "assert x, 'msg'",
            "else:",
            "s = b'\\x00' if t else 'é\\n'",
            "x = 1  # type: int",
        ][..],
    );
    prop::collection::vec((stmt, 0usize..3), 0..12).prop_map(|v| {
        v.into_iter()
            .map(|(s, indent)| format!("{}{s}\n", "    ".repeat(indent)))
            .collect()
    })
}

/// Well-formed programs: the same statements, indented as the block structure requires, so the
/// round-trip half of `check` runs on every case.
fn programs() -> impl Strategy<Value = String> {
    let stmt = prop::sample::select(
        &[
            ("x = -y ** 2 if a else (b, *c)", false),
            ("return a if b else c", false),
            ("def f(a: int, /, b=2, *c, d, **e) -> T:", true),
            ("if not a == b or c is not None:", true),
            ("for i, (j, k) in zip(p, q):", true),
            ("while 0 <= i < n and x[i]:", true),
            ("x[:, 1:3, None] = t @ u", false),
            ("y += f(*a, k=1, **m)", false),
            ("pass", false),
            ("print(f'{x!r:>{w}} {y=} {{}}')", false),
            ("z = [v for v in w if v] + [{1: 2, **q}, {3}]", false),
            ("g = lambda a, b=2: (yield)", false),
            ("from ..m import (d, e as f)", false),
            ("assert x, 'msg \\n \\' \"'", false),
            ("s = b'\\x00' if t else 'é\\t'", false),
            ("x = 1  # type: List[int]", false),
            ("class C(B, metaclass=M):", true),
            ("with a as b, c:", true),
            ("del a[0], b.c", false),
            ("k = ~-x // 2 % 3 << 1 | 5 ^ 6 & 7", false),
            ("raise E('m') from None", false),
            ("@torch.jit.script", false),
        ][..],
    );
    prop::collection::vec((stmt, 0usize..4), 1..16).prop_map(|v| {
        let mut out = String::new();
        let mut level = 0usize;
        let mut need_body = false;
        let mut after_decorator = false;
        for ((s, header), k) in v {
            if need_body {
                level += 1;
            } else if !after_decorator {
                level = level.min(k);
            }
            // A decorator must be followed by a `def` or `class`.
            let s = if after_decorator && !s.starts_with("def") && !s.starts_with("class") {
                "def g():"
            } else {
                s
            };
            let header = header || s == "def g():";
            out.push_str(&"    ".repeat(level));
            out.push_str(s);
            out.push('\n');
            need_body = header;
            after_decorator = s.starts_with('@');
        }
        if need_body || after_decorator {
            if after_decorator {
                out.push_str(&"    ".repeat(level));
                out.push_str("def g():\n");
            }
            out.push_str(&"    ".repeat(level + 1));
            out.push_str("pass\n");
        }
        out
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        check(String::from_utf8_lossy(&bytes).into_owned())?;
    }

    #[test]
    fn arbitrary_ascii_never_panics(s in "[ -~\n\t]{0,120}") {
        check(s)?;
    }

    #[test]
    fn arbitrary_token_sequences_never_panic(s in tokens()) {
        check(s)?;
    }

    #[test]
    fn statement_soups_never_panic(s in statements()) {
        check(s)?;
    }

    #[test]
    fn well_formed_programs_parse_and_round_trip(s in programs()) {
        let file = SourceFile::new("prog.py", s.clone());
        prop_assert!(parse_module(&file).is_ok(), "{}", s);
        check(s)?;
    }
}
