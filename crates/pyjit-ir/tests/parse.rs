//! Parser tests: error messages with their positions, accepted spellings, and robustness
//! (arbitrary input never panics; deep nesting does not overflow the stack).

mod common;

use common::Rng;
use pyjit_ir::*;

#[track_caller]
fn err(text: &str, expected: &str) {
    match parse_module(text) {
        Ok(m) => panic!("expected an error, parsed:\n{}", print_module(&m)),
        Err(e) => assert_eq!(e.to_string(), expected, "for:\n{text}"),
    }
}

#[test]
fn syntax_errors() {
    err("fun @f() -> int {}", "1:1: expected `func`, found `fun`");
    err(
        "func f() -> int {}",
        "1:6: expected a function name like `@f`, found `f`",
    );
    err(
        "func @f( -> int {}",
        "1:10: expected a value name like `%0`, found `->`",
    );
    err(
        "func @f() int {}",
        "1:11: expected `->` and a return type, found `int`",
    );
    err("func @f() -> integer {}", "1:14: unknown type `integer`");
    err(
        "func @f() -> Tensor[float16] {}",
        "1:21: unknown dtype `float16`",
    );
    err(
        "func @f() -> Tensor[?, [3, x]] {}",
        "1:28: expected a dimension or `?`, found `x`",
    );
    err("func @f() -> List[int {}", "1:23: expected `]`, found `{`");
    err(
        "func @f() -> int {\n  %0: int = const 1\n",
        "3:1: expected `}` before the end of the text",
    );
    err(
        "func @f() -> int {\n  %0: int = frobnicate(%0)\n}",
        "2:13: unknown op `frobnicate`",
    );
    err(
        "func @f() -> int {\n  %0: int = tensor.frobnicate()\n}",
        "2:13: unknown op `tensor.frobnicate` (not in the runtime's op-schema table)",
    );
    err(
        "func @f() -> int {\n  %0: int = int.add(%1, %1)\n}",
        "2:21: value `%1` is used before it is defined",
    );
    err(
        "func @f() -> int {\n  %0: int = const 1\n  %0: int = const 2\n}",
        "3:3: value `%0` is defined twice",
    );
    err(
        "func @f(%a: int, %a: int) -> int {\n}",
        "1:18: parameter `%a` is defined twice",
    );
    err(
        "func @f() -> int {\n}\nfunc @f() -> int {\n}",
        "3:6: function `@f` is defined twice",
    );
    err(
        "func @f() -> int {\n  %0: int = call @g()\n}",
        "2:18: call of unknown function `@g`",
    );
    err(
        "func @f() -> int {\n  %0: int = const 99999999999999999999\n}",
        "2:19: bad int `99999999999999999999` (ints are 64-bit)",
    );
    err(
        "func @f() -> int {\n  %0: str = const \"abc\n}",
        "2:19: unterminated string",
    );
    err(
        "func @f() -> int {\n  %0: str = const \"\\q\"\n}",
        "2:19: unknown escape in string",
    );
    err(
        "func @f() -> int {\n  %0: str = const \"\\u{110000}\"\n}",
        "2:19: bad escape `\\u{110000}`",
    );
    err(
        "func @f() -> int {\n  %0: int = const maybe\n}",
        "2:19: expected a constant, found `maybe`",
    );
    err(
        "func @f() -> int {\n  %0: int = tuple.get(%0)\n}",
        "2:22: `tuple.get` needs `[...]` attributes",
    );
    err(
        "func @f(%x: int) -> int {\n  %0: int = int.neg[1](%x)\n}",
        "2:20: `int.neg` takes no `[...]` attributes",
    );
    err(
        "func @f(%c: bool) -> int {\n  if %c {\n    yield\n  }\n}",
        "5:1: expected `else`, found `}`",
    );
    err(
        "func @f() -> int {\n  %0: int = if\n}",
        "3:1: expected a value like `%0`, found `}`",
    );
    err(
        "func @f() -> int {\n  $\n}",
        "2:3: unexpected character `$`",
    );
    err(
        "func @f() -> int {\n  %: int = const 1\n}",
        "2:3: expected a name after `%`",
    );
    err(
        "func @f() -> int {  # a.py:1\n  return\n}",
        "1:21: expected a location `# file:line:col`, found `# a.py:1`",
    );
    err(
        "func @f() -> int {  # a.py:1:1\n  %0: int = const 1  # b.py:2:2\n  return %0\n}",
        "2:22: a module has one source file; found `a.py` and `b.py`",
    );
    err(
        "func @f() -> int {  # a.py:0:1\n}",
        "1:21: locations are 1-based",
    );
    // Far-away locations without the source file are refused, not allocated (a fuzzer found
    // `# a.py:4000000000:1` asking for 4 GB of blank lines).
    err(
        "func @f() -> int {  # a.py:1:1\n  %0: int = const 1  # a.py:4000000000:7\n  return %0\n}",
        "2:22: the locations of a module parsed without its source file need 4000000006 bytes \
         of blank source text (at most 67108864); check this location's line and column, or \
         parse with the source file (parse_module_with_source)",
    );
    err(
        "func @f() -> int {  # a.py:3:4000000000\n}",
        "1:21: the locations of a module parsed without its source file need 4000000002 bytes \
         of blank source text (at most 67108864); check this location's line and column, or \
         parse with the source file (parse_module_with_source)",
    );
    // Many locations on far lines still round-trip (the blank text is one newline per line).
    let text = "func @f() -> int {  # a.py:9000000:3\n  %0: int = const 1  # a.py:2:5\n  return %0  # a.py:9000000:1\n}\n";
    let m = parse_module(text).unwrap();
    assert_eq!(
        parse_module(&print_module(&m))
            .map(|b| print_module(&b))
            .unwrap(),
        print_module(&m)
    );
}

#[test]
fn accepted_spellings() {
    // Any value names, quoted function names, default overloads, `-inf`, `str.of` without spec,
    // comments that are not locations elsewhere are not allowed, but whitespace is free.
    let m = parse_module(
        "func @\"my func\"(%input: Tensor)->Tensor{\n%acc:Tensor=tensor.relu(%input)\n  return   %acc }\n\
         func @g() -> float {\n  %neg: float = const -inf\n  %s: str = str.of(%neg)\n  return %neg\n}\n",
    )
    .unwrap();
    verify_module(&m).unwrap();
    assert_eq!(
        print_module(&m),
        "func @\"my func\"(%input: Tensor) -> Tensor {\n  %0: Tensor = tensor.relu(%input)\n  return %0\n}\n\n\
         func @g() -> float {\n  %0: float = const -inf\n  %1: str = str.of(%0)\n  return %0\n}\n"
    );
}

#[test]
fn windows_paths_and_spans_without_comment() {
    // The file name may contain `:`; the last two fields are line and column.
    let text = "func @f(%x: int) -> int {  # C:\\src\\a.py:3:1\n  %0: int = int.neg(%x)\n  return %0  # C:\\src\\a.py:4:12\n}\n";
    let m = parse_module(text).unwrap();
    assert_eq!(m.source.as_ref().unwrap().name, "C:\\src\\a.py");
    let printed = print_module(&m);
    // The op without a comment gets offset 0, i.e. line 1, column 1.
    let lines: Vec<&str> = printed.lines().collect();
    assert!(
        lines[1].starts_with("  %0: int = int.neg(%x)  "),
        "{printed}"
    );
    assert!(lines[1].ends_with("# C:\\src\\a.py:1:1"), "{printed}");
    assert!(lines[2].ends_with("# C:\\src\\a.py:4:12"), "{printed}");
    assert_eq!(print_module(&parse_module(&printed).unwrap()), printed);
}

#[test]
fn deep_nesting_does_not_overflow() {
    // 400 nested `if`s: the parser is iterative; printer and verifier recurse once per region
    // level, well within the default stack at this depth (source nesting is far shallower).
    let depth = 400;
    let mut text = String::from("func @deep(%c: bool) -> int {\n");
    for i in 0..depth {
        text.push_str(&format!("%r{i}: int = if %c {{\n"));
    }
    text.push_str("%leaf: int = const 7\nyield %leaf\n");
    for i in (0..depth).rev() {
        text.push_str(&format!(
            "}} else {{\n%e{i}: int = const {i}\nyield %e{i}\n}}\n"
        ));
        if i > 0 {
            text.push_str(&format!("yield %r{i}\n"));
        }
    }
    text.push_str("return %r0\n}\n");
    let m = parse_module(&text).unwrap();
    verify_module(&m).unwrap();
    let printed = print_module(&m);
    assert_eq!(print_module(&parse_module(&printed).unwrap()), printed);
}

#[test]
fn arbitrary_input_never_panics() {
    let seeds = [
        std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/ir/roundtrip/nested_loops.ir"
        ))
        .unwrap(),
        std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/ir/roundtrip/constants.ir"
        ))
        .unwrap(),
        std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/ir/roundtrip/conditional_op.ir"
        ))
        .unwrap(),
    ];
    let alphabet: Vec<char> = "%@#:=,()[]{}\"\\-.0123456789 \nabcifloopyieldreturnTensorint?é"
        .chars()
        .collect();
    let mut rng = Rng(0x9e3779b97f4a7c15);
    for round in 0..3000 {
        let seed = &seeds[round % seeds.len()];
        let mut chars: Vec<char> = seed.chars().collect();
        // Mutate: delete, insert or replace a few characters, or truncate.
        for _ in 0..(1 + rng.next() % 4) {
            let pos = (rng.next() as usize) % (chars.len() + 1);
            match rng.next() % 4 {
                0 if pos < chars.len() => {
                    chars.remove(pos);
                }
                1 => chars.insert(pos, alphabet[(rng.next() as usize) % alphabet.len()]),
                2 if pos < chars.len() => {
                    chars[pos] = alphabet[(rng.next() as usize) % alphabet.len()]
                }
                _ => chars.truncate(pos),
            }
        }
        let text: String = chars.into_iter().collect();
        // Whatever parses must verify without panicking and print to a fixed point.
        if let Ok(m) = parse_module(&text) {
            let _ = verify_module(&m);
            let printed = print_module(&m);
            if verify_module(&m).is_ok() {
                let again = parse_module(&printed).unwrap_or_else(|e| panic!("{e}\n{printed}"));
                assert_eq!(print_module(&again), printed);
            }
        }
    }
}

#[test]
fn standalone_comment_lines_are_ignored() {
    let text =
        "# test: dce\n# check: return %x\nfunc @f(%x: int) -> int {\n  # a note\n  return %x\n}\n";
    let m = parse_module(text).unwrap();
    assert!(m.source.is_none());
    assert_eq!(
        print_module(&m),
        "func @f(%x: int) -> int {\n  return %x\n}\n"
    );
}

#[test]
fn locations_map_into_a_real_source() {
    let src = std::sync::Arc::new(pyjit_syntax::SourceFile::new(
        "é.py",
        "def f(x):\n    return x  # é\n",
    ));
    let text = "func @f(%x: Tensor) -> Tensor {  # é.py:1:1\n  return %x  # é.py:2:5\n}\n";
    let m = parse_module_with_source(text, src.clone()).unwrap();
    let f = m.func(m.function_by_name("f").unwrap());
    let ret = f.terminator(f.body).unwrap();
    assert_eq!(
        src.slice(pyjit_syntax::Span::new(
            f.op(ret).span.start as usize,
            f.op(ret).span.start as usize + 6
        )),
        "return"
    );
    let bad = "func @f(%x: Tensor) -> Tensor {  # é.py:9:1\n  return %x\n}\n";
    assert_eq!(
        parse_module_with_source(bad, src.clone())
            .unwrap_err()
            .to_string(),
        "1:1: location é.py:9:1 is outside the source file"
    );
    let bad_col = "func @f(%x: Tensor) -> Tensor {  # é.py:1:10\n  return %x\n}\n";
    assert!(parse_module_with_source(bad_col, src.clone()).is_ok());
    let too_far = "func @f(%x: Tensor) -> Tensor {  # é.py:1:11\n  return %x\n}\n";
    assert!(parse_module_with_source(too_far, src).is_err());
}
