//! Focused checks of the parser: precedence and associativity, literals, type comments, spans,
//! and the nesting limits that keep deep inputs from overflowing the stack.

mod common;

use pyjit_syntax::ast::*;
use pyjit_syntax::{SourceFile, dump, parse_expr, parse_module, strip_spans_expr, unparse_expr};

fn expr(src: &str) -> Expr {
    let file = SourceFile::new("<expr>", src);
    match parse_expr(&file) {
        Ok(e) => e,
        Err(ds) => panic!(
            "{src}: {}",
            ds.iter().map(|d| d.render(&file)).collect::<String>()
        ),
    }
}

/// The expression as fully parenthesised S-expression text, to state precedence compactly.
fn sexp(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Name(n) => n.clone(),
        ExprKind::Int(v) => v.to_string(),
        ExprKind::Float(v) => format!("{v:?}"),
        ExprKind::BinOp { left, op, right } => {
            format!("({} {} {})", op.symbol(), sexp(left), sexp(right))
        }
        ExprKind::UnaryOp { op, operand } => format!("({} {})", op.symbol(), sexp(operand)),
        ExprKind::BoolOp { op, values } => {
            let o = if *op == BoolOp::And { "and" } else { "or" };
            format!(
                "({o} {})",
                values.iter().map(sexp).collect::<Vec<_>>().join(" ")
            )
        }
        ExprKind::Compare { left, ops } => {
            let mut s = format!("(cmp {}", sexp(left));
            for (op, x) in ops {
                s.push_str(&format!(" {} {}", op.symbol(), sexp(x)));
            }
            s + ")"
        }
        ExprKind::IfExp { test, body, orelse } => {
            format!("(if {} {} {})", sexp(test), sexp(body), sexp(orelse))
        }
        ExprKind::Call { func, args, .. } => {
            format!(
                "(call {} {})",
                sexp(func),
                args.iter().map(sexp).collect::<Vec<_>>().join(" ")
            )
        }
        ExprKind::Attribute { value, attr } => format!("(. {} {})", sexp(value), attr.name),
        ExprKind::Subscript { value, index } => format!("([] {} {})", sexp(value), sexp(index)),
        ExprKind::Tuple(es) => format!(
            "(tuple {})",
            es.iter().map(sexp).collect::<Vec<_>>().join(" ")
        ),
        ExprKind::Slice { lower, upper, step } => {
            let p =
                |x: &Option<Box<Expr>>| x.as_ref().map(|e| sexp(e)).unwrap_or_else(|| "_".into());
            format!("(slice {} {} {})", p(lower), p(upper), p(step))
        }
        ExprKind::None => "None".into(),
        ExprKind::Ellipsis => "...".into(),
        ExprKind::Await(x) => format!("(await {})", sexp(x)),
        ExprKind::Lambda { body, .. } => format!("(lambda {})", sexp(body)),
        ExprKind::Starred(x) => format!("(* {})", sexp(x)),
        other => format!("{other:?}"),
    }
}

fn check(src: &str, want: &str) {
    let e = expr(src);
    assert_eq!(sexp(&e), want, "{src}");
    // The unparser must print something that parses back to the same tree.
    let printed = unparse_expr(&e);
    let mut a = e.clone();
    let mut b = expr(&printed);
    strip_spans_expr(&mut a);
    strip_spans_expr(&mut b);
    assert_eq!(a, b, "{src} unparsed as {printed}");
}

#[test]
fn power_binds_tighter_than_unary_minus_on_its_left() {
    check("-x**2", "(- (** x 2))");
    check("2**-1", "(** 2 (- 1))");
    check("-2**-x**y", "(- (** 2 (- (** x y))))");
    check("(-x)**2", "(** (- x) 2)");
    check("~x**2", "(~ (** x 2))");
}

#[test]
fn power_is_right_associative() {
    check("a**b**c", "(** a (** b c))");
    check("(a**b)**c", "(** (** a b) c)");
}

#[test]
fn arithmetic_is_left_associative() {
    check("a - b - c", "(- (- a b) c)");
    check("a / b * c // d % e", "(% (// (* (/ a b) c) d) e)");
    check("a - (b - c)", "(- a (- b c))");
    check("a + b * c", "(+ a (* b c))");
    check("a @ b + c", "(+ (@ a b) c)");
}

#[test]
fn bitwise_and_shift_tiers() {
    check("a | b ^ c & d", "(| a (^ b (& c d)))");
    check("a << b + c", "(<< a (+ b c))");
    check("a & b << c", "(& a (<< b c))");
}

#[test]
fn conditional_expressions_nest_to_the_right() {
    check("a if b else c if d else e", "(if b a (if d c e))");
    check("(a if b else c) if d else e", "(if d (if b a c) e)");
    check("x or y if z else w", "(if z (or x y) w)");
}

#[test]
fn not_binds_looser_than_comparison() {
    check("not a == b", "(not (cmp a == b))");
    check("not a and b", "(and (not a) b)");
    check("not not a", "(not (not a))");
    check("a or b and c", "(or a (and b c))");
    check("a and b and c", "(and a b c)");
}

#[test]
fn comparisons_chain() {
    check("a < b < c", "(cmp a < b < c)");
    check("0 <= i < n", "(cmp 0 <= i < n)");
    check("a is not None", "(cmp a is not None)");
    check("a not in b", "(cmp a not in b)");
    check("a is not b is c", "(cmp a is not b is c)");
    check("a + 1 < b * 2", "(cmp (+ a 1) < (* b 2))");
}

#[test]
fn primaries_chain_left_to_right() {
    check(
        "x.y.z(1)(2)[3].w",
        "(. ([] (call (call (. (. x y) z) 1) 2) 3) w)",
    );
    check("await f(x) ** 2", "(** (await (call f x)) 2)");
    check("-f(x).y", "(- (. (call f x) y))");
}

#[test]
fn subscripts() {
    check(
        "x[:, 1:3, None]",
        "([] x (tuple (slice _ _ _) (slice 1 3 _) None))",
    );
    check("x[::2]", "([] x (slice _ _ 2))");
    check("x[..., 0]", "([] x (tuple ... 0))");
    check("x[1:-1:2]", "([] x (slice 1 (- 1) 2))");
    check("x[i]", "([] x i)");
    check("x[i,]", "([] x (tuple i))");
    check("x[*a]", "([] x (* a))");
}

#[test]
fn tuples_and_lambdas() {
    check("a, b", "(tuple a b)");
    check("a,", "(tuple a)");
    check("()", "(tuple )");
    check("lambda x: x + 1", "(lambda (+ x 1))");
    check("lambda: a if b else c", "(lambda (if b a c))");
}

#[test]
fn numbers_in_every_form() {
    use ExprKind::{Float, Imag, Int};
    let cases = [
        ("1_000", Int(1000)),
        ("0x1F", Int(31)),
        ("0X_ff", Int(255)),
        ("0b101", Int(5)),
        ("0o17", Int(15)),
        ("0", Int(0)),
        ("00", Int(0)),
        ("1_2_3", Int(123)),
        ("1e-3", Float(1e-3)),
        (".5", Float(0.5)),
        ("5.", Float(5.0)),
        ("1.5e+2", Float(150.0)),
        ("1_0.2_5", Float(10.25)),
        ("1E5", Float(1e5)),
        ("1j", Imag(1.0)),
        ("2.5J", Imag(2.5)),
        ("1e999", Float(f64::INFINITY)),
    ];
    for (src, kind) in cases {
        assert_eq!(expr(src).kind, kind, "{src}");
    }
}

#[test]
fn string_literals() {
    let cases: [(&str, &str); 9] = [
        (r#""a\tb""#, "a\tb"),
        (r#"r"a\tb""#, "a\\tb"),
        (r#"'it''s'"#, "its"),
        (r#""\x41\101\u00e9\U0001F600""#, "AAé😀"),
        ("'''a\nb'''", "a\nb"),
        ("\"a\\\nb\"", "ab"),
        (r#""unknown \d escape""#, "unknown \\d escape"),
        (r#"R'\n'"#, "\\n"),
        ("'a' \"b\" '''c'''", "abc"),
    ];
    for (src, want) in cases {
        assert_eq!(expr(src).kind, ExprKind::Str(want.to_string()), "{src}");
    }
    assert_eq!(expr(r#"b"\x00\xff""#).kind, ExprKind::Bytes(vec![0, 255]));
    assert_eq!(expr(r#"rb"\x00""#).kind, ExprKind::Bytes(b"\\x00".to_vec()));
}

#[test]
fn fstring_fields_have_absolute_spans() {
    let src = "y = f'a{x + 1!r:>{w}}b' 'c'\n";
    let file = SourceFile::new("f.py", src);
    let m = parse_module(&file).unwrap();
    let StmtKind::Assign { value, .. } = &m.body[0].kind else {
        panic!()
    };
    let ExprKind::FString(parts) = &value.kind else {
        panic!("{value:?}")
    };
    assert_eq!(parts.len(), 3);
    assert_eq!(parts[0], FStringPart::Literal("a".into()));
    assert_eq!(parts[2], FStringPart::Literal("bc".into()));
    let FStringPart::Expr(field) = &parts[1] else {
        panic!()
    };
    assert_eq!(file.slice(field.expr.span), "x + 1");
    assert_eq!(field.conversion, Some('r'));
    assert!(!field.debug);
    let FStringPart::Expr(w) = &field.format_spec[1] else {
        panic!("{:?}", field.format_spec)
    };
    assert_eq!(file.slice(w.expr.span), "w");
}

#[test]
fn type_comments_attach_to_defs_and_assignments() {
    let src = "def f(a, b):\n    # type: (int, Tensor) -> Tensor\n    x = []  # type: List[int]\n    y = []  # type: ignore\n    z = 1\n    # type: int\n    return x\n";
    let file = SourceFile::new("t.py", src);
    let m = parse_module(&file).unwrap();
    let StmtKind::FunctionDef(f) = &m.body[0].kind else {
        panic!()
    };
    assert_eq!(
        f.type_comment.as_ref().map(|t| t.text.as_str()),
        Some("(int, Tensor) -> Tensor")
    );
    let comments: Vec<Option<&str>> = f
        .body
        .iter()
        .filter_map(|s| match &s.kind {
            StmtKind::Assign { type_comment, .. } => {
                Some(type_comment.as_ref().map(|t| t.text.as_str()))
            }
            _ => None,
        })
        .collect();
    // `# type: ignore` is not a type; a type comment on its own line belongs to no assignment.
    assert_eq!(comments, vec![Some("List[int]"), None, None]);
}

#[test]
fn statement_spans_end_at_their_last_token() {
    let src = "def f(x):\n    if x:\n        return 1\n\n\n    return 2\n\n\ny = 3\n";
    let file = SourceFile::new("s.py", src);
    let m = parse_module(&file).unwrap();
    assert_eq!(
        file.slice(m.body[0].span),
        "def f(x):\n    if x:\n        return 1\n\n\n    return 2"
    );
    let StmtKind::FunctionDef(f) = &m.body[0].kind else {
        panic!()
    };
    assert_eq!(file.slice(f.body[0].span), "if x:\n        return 1");
    assert_eq!(file.slice(m.body[1].span), "y = 3");
    let lc = file.line_col(m.body[1].span.start);
    assert_eq!((lc.line, lc.col), (9, 1));
}

#[test]
fn crlf_tabs_and_continuations() {
    let crlf = "def f(x):\r\n    if x:\r\n        return 1\r\n    return 2\r\n";
    let lf = crlf.replace("\r\n", "\n");
    let tabs = "def f(x):\n\tif x:\n\t\treturn 1\n\treturn 2\n";
    let cont = "def f(x):\n    if \\\n  x:\n        return \\\n1\n    return (\n2)\n";
    let norm = |src: &str| {
        let mut m = parse_module(&SourceFile::new("c.py", src)).unwrap();
        pyjit_syntax::strip_spans(&mut m);
        m
    };
    let want = norm(&lf);
    assert_eq!(norm(crlf), want);
    assert_eq!(norm(tabs), want);
    assert_eq!(norm(cont), want);
}

#[test]
fn blank_and_comment_lines_do_not_affect_blocks() {
    let src = "if x:\n\n    # comment\n        # deeper comment\n    y = 1\n  # shallow comment\n    z = 2\n";
    let m = parse_module(&SourceFile::new("b.py", src)).unwrap();
    let StmtKind::If { body, .. } = &m.body[0].kind else {
        panic!()
    };
    assert_eq!(body.len(), 2);
}

#[test]
fn byte_order_mark_is_ignored() {
    let m = parse_module(&SourceFile::new(
        "bom.py",
        "\u{feff}x = 1\nif x:\n    y = 2\n",
    ))
    .unwrap();
    assert_eq!(m.body.len(), 2);
}

#[test]
fn empty_and_comment_only_files() {
    for src in [
        "",
        "\n\n",
        "# just a comment",
        "  # indented comment\n\n# more\n",
        "\\\n",
    ] {
        let m = parse_module(&SourceFile::new("e.py", src)).unwrap_or_else(|_| panic!("{src:?}"));
        assert!(m.body.is_empty(), "{src:?}");
    }
}

#[test]
fn soft_keywords_are_names() {
    let m = parse_module(&SourceFile::new(
        "k.py",
        "match = case = type = 1\n_ = match\n",
    ))
    .unwrap();
    assert!(dump(&m).contains("Name match"));
}

/// A format spec is raw text: a line break in the spec of a triple-quoted f-string, or a
/// backslash before the `}` or `{` in the spec of a raw f-string, or a brace that a backslash
/// kept in a spec (all found by the `parse` fuzz target), must unparse to text that parses again, with the same spec.
#[test]
fn fstring_spec_with_a_line_break_unparses_to_a_parseable_fstring() {
    let sources = [
        "f\"\"\"{e:\n}\"\"\"\n",
        "f'''{e:\n>{w}}\"'''\n",
        "x = f\"\"\"{e:\r}\"'\"\"\"\n",
        // A backslash before the `}` or `{` of a raw f-string's spec.
        "fr\"{e:\\}\"\n",
        "fr\"{e:a\\{w}}\"\n",
        "fr\"\"\"{e:\n  x \\}\"\"\", t5\n",
        // A brace the backslash kept in spec text (the spec is `\}`; found by the fuzz target).
        "f\"{a:\\}}\"\n",
        "f\"{a:\\{x\\}}\"\n",
    ];
    for src in sources {
        let m = parse_module(&SourceFile::new("s.py", src)).unwrap();
        let printed = pyjit_syntax::unparse(&m);
        let again = parse_module(&SourceFile::new("u.py", printed.as_str()))
            .unwrap_or_else(|d| panic!("{src:?} unparsed to {printed:?}: {d:?}"));
        assert_eq!(pyjit_syntax::unparse(&again), printed, "{src:?}");
    }
}

/// Parses on a thread with a deliberately small stack: the nesting limits must keep every
/// recursive walk (parse actions, drop, dump, unparse) far below it.
fn on_small_stack(src: String) -> Result<String, String> {
    std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(move || {
            let file = SourceFile::new("deep.py", src);
            match parse_module(&file) {
                Ok(m) => {
                    let printed = pyjit_syntax::unparse(&m);
                    let _ = dump(&m);
                    Ok(printed)
                }
                Err(ds) => {
                    common::check_spans(&file, &ds);
                    Err(ds
                        .iter()
                        .map(|d| d.message.clone())
                        .collect::<Vec<_>>()
                        .join("\n"))
                }
            }
        })
        .expect("spawn")
        .join()
        .expect("no stack overflow or panic")
}

#[test]
fn ten_thousand_nested_parentheses_are_an_error() {
    let src = format!("x = {}1{}\n", "(".repeat(10_000), ")".repeat(10_000));
    let err = on_small_stack(src).unwrap_err();
    assert!(err.contains("too deeply nested"), "{err}");
}

#[test]
fn deep_inputs_without_brackets_are_errors_not_crashes() {
    let cases = [
        format!("x = {}1\n", "-".repeat(100_000)),
        format!("x = {}1\n", "not ".repeat(50_000)),
        format!("x = 1{}\n", " + 1".repeat(50_000)),
        format!("x = 1{}\n", " ** 2".repeat(50_000)),
        format!("x = a{}\n", ".b".repeat(50_000)),
        format!("x = f{}\n", "()".repeat(50_000)),
        format!("x = {}1\n", "lambda: ".repeat(50_000)),
        format!("x = 1{}\n", " if c else 1".repeat(50_000)),
    ];
    for src in cases {
        let head: String = src.chars().take(20).collect();
        let err = on_small_stack(src).unwrap_err();
        assert!(err.contains("too deeply nested"), "{head}: {err}");
    }
}

#[test]
fn wide_but_shallow_inputs_are_fine() {
    // Long flat displays are not deep: commas reset the nesting estimate.
    let list = format!(
        "x = [{}]\n",
        (0..20_000)
            .map(|i| format!("-{i}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    assert!(on_small_stack(list).is_ok());
    let many_stmts = "x = -1 + 2 * 3\n".repeat(5_000);
    assert!(on_small_stack(many_stmts).is_ok());
    // Right at the limits: ~490 operators deep, nested f-strings, 200 brackets and 99 blocks.
    let deep_ops = format!("x = {}1\n", "-".repeat(490));
    assert!(on_small_stack(deep_ops).is_ok());
    let deep_lambda = format!("x = {}1\n", "lambda: ".repeat(490));
    assert!(on_small_stack(deep_lambda).is_ok());
    let nested_f = r#"x = f'{f"{1:{w}}"}'"#.to_string() + "\n";
    assert!(on_small_stack(nested_f).is_ok());
    let brackets = format!("x = {}1{}\n", "(".repeat(200), ")".repeat(200));
    assert!(on_small_stack(brackets).is_ok());
    let mut blocks = String::new();
    for i in 0..99 {
        blocks.push_str(&format!("{}if x:\n", " ".repeat(i)));
    }
    blocks.push_str(&format!("{}pass\n", " ".repeat(99)));
    assert!(on_small_stack(blocks).is_ok());
}

/// The backslash of a raw f-string's spec keeps its value through unparse: `fr"{e:a\}"` prints
/// with the backslash as a nested field, whose value is the same spec text.
#[test]
fn fstring_spec_backslash_unparses_as_a_nested_field() {
    let m = parse_module(&SourceFile::new("s.py", "fr\"{e:a\\}\"\n")).unwrap();
    assert_eq!(pyjit_syntax::unparse(&m), "f\"{e:a{'\\\\'}}\"\n");
}
