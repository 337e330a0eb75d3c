//! Rendered syntax diagnostics, checked byte for byte (naga's `wgsl_errors.rs` is the model):
//! what a user sees is tested like any other output. Re-bless with `INSTA_UPDATE=always`.

mod common;

/// Parses `src` (as `{name}.py`) and compares its rendered diagnostics with the snapshot `name`.
fn check(name: &str, src: &str) {
    let rendered = common::render_errors(name, src);
    insta::assert_snapshot!(name, rendered);
}

/// One row per case: the snapshot's name and the source that must fail to parse.
const CASES: &[(&str, &str)] = &[
    // Indentation.
    ("unexpected_indent", "def f(x):\n    y = 1\n      z = 2\n"),
    ("unexpected_indent_first_line", "  x = 1\n"),
    (
        "unindent_mismatch",
        "def f(x):\n    if x:\n        y = 1\n      z = 2\n",
    ),
    ("tabs_spaces_mixed", "def f(x):\n    y = 1\n\tz = 2\n"),
    ("tabs_after_spaces_block", "if x:\n        a = 1\n\tb = 2\n"),
    ("def_without_body", "def f():\nx = 1\n"),
    ("def_without_body_at_eof", "def f(x: int) -> int:\n"),
    ("if_without_body", "if x > 0:\n\nprint(x)\n"),
    (
        "for_without_body_nested",
        "def f():\n    for i in range(3):\n    return 1\n",
    ),
    // Brackets.
    ("unclosed_paren_next_line", "x = (1, 2\ny = 3\n"),
    ("unclosed_paren_eof", "x = foo(1, 2"),
    (
        "unclosed_bracket_in_def",
        "def f(x):\n    return [x, x\n\ndef g():\n    pass\n",
    ),
    ("unclosed_brace", "d = {'a': 1,\n"),
    ("stray_close_paren", "x = 1)\n"),
    ("stray_close_bracket", "def f():\n    return x]\n"),
    ("mismatched_brackets", "x = (1, 2]\n"),
    // Strings.
    ("unterminated_string", "x = \"abc\ny = 1\n"),
    ("unterminated_single_quote", "print('hello)\n"),
    (
        "unterminated_triple_string",
        "def f():\n    \"\"\"docstring\n    return 1\n",
    ),
    ("bad_hex_escape", "x = \"\\x4\"\n"),
    ("bytes_non_ascii", "x = b\"caf\u{e9}\"\n"),
    ("mixed_bytes_and_str", "x = b\"a\" \"b\"\n"),
    ("fstring_empty_field", "x = f\"{}\"\n"),
    ("fstring_unclosed_field", "x = f\"{a\"\n"),
    ("fstring_single_close_brace", "x = f\"a } b\"\n"),
    ("fstring_bad_conversion", "x = f\"{a!x}\"\n"),
    ("fstring_bad_expression", "x = f\"{a +}\"\n"),
    // Numbers and characters.
    ("hex_without_digits", "x = 0x\n"),
    ("double_underscore_in_number", "x = 1__0\n"),
    ("trailing_underscore_in_number", "x = 100_\n"),
    ("leading_zero_decimal", "x = 09\n"),
    ("binary_bad_digit", "x = 0b102\n"),
    ("name_starting_with_digit", "x = 1abc\n"),
    ("dollar_sign", "x = $y\n"),
    ("exclamation_not", "if !x:\n    pass\n"),
    ("stray_backslash", "x = 1 \\ 2\n"),
    (
        "integer_too_large",
        "x = 9999999999999999999999999999999999999999999\n",
    ),
    // Missing pieces.
    ("missing_colon_if", "if x\n    pass\n"),
    ("missing_colon_def", "def f(x)\n    return x\n"),
    ("missing_colon_for", "for i in range(3)\n    pass\n"),
    ("missing_colon_while", "while x > 0\n    x -= 1\n"),
    ("missing_colon_class", "class A\n    pass\n"),
    ("assignment_in_condition", "if x = 1:\n    pass\n"),
    ("missing_expression_after_assign", "x = \n"),
    ("missing_expression_after_operator", "y = 1 +\n"),
    (
        "missing_expression_in_return_tuple",
        "def f():\n    return 1, , 2\n",
    ),
    ("missing_comma_in_list", "x = [1, 2 3]\n"),
    ("empty_call_argument", "f(1, , 2)\n"),
    ("print_statement", "print \"hello\"\n"),
    // Misplaced keywords.
    ("else_without_if", "else:\n    pass\n"),
    ("elif_without_if", "x = 1\nelif x:\n    pass\n"),
    (
        "else_after_dedent_mismatch",
        "def f(x):\n    if x:\n        return 1\nelse:\n    return 2\n",
    ),
    ("except_without_try", "except ValueError:\n    pass\n"),
    ("keyword_as_name", "def = 3\n"),
    ("class_keyword_as_param", "def f(class):\n    pass\n"),
    // Invalid targets.
    ("assign_to_call", "f() = 1\n"),
    ("assign_to_literal", "1 = x\n"),
    ("assign_to_comparison", "a == b = 1\n"),
    ("assign_to_operator", "a + 1 = 2\n"),
    ("augassign_to_tuple", "a, b += 1\n"),
    ("annotate_tuple", "a, b: int = 1, 2\n"),
    ("for_target_literal", "for 1 in x:\n    pass\n"),
    ("del_call", "del f()\n"),
    ("starred_alone", "*a = [1, 2]\n"),
    ("walrus_on_attribute", "if (a.b := 1):\n    pass\n"),
    // Parameters and arguments.
    ("default_before_plain_param", "def f(a=1, b):\n    pass\n"),
    ("param_after_kwargs", "def f(**kw, a):\n    pass\n"),
    ("bare_star_without_kwonly", "def f(a, *):\n    pass\n"),
    ("positional_after_keyword", "f(a=1, 2)\n"),
    ("repeated_keyword", "f(a=1, a=2)\n"),
    ("unparenthesized_generator", "f(x for x in y, 1)\n"),
    // More missing pieces.
    ("missing_else_in_conditional", "x = 1 if y\n"),
    ("try_without_except", "try:\n    pass\nx = 1\n"),
    ("attribute_without_name", "x = a.\n"),
    ("import_without_name", "from x import\n"),
    ("while_without_condition", "while:\n    pass\n"),
    ("comprehension_without_iterable", "x = [i for i in]\n"),
    ("annotation_missing", "def f(x:):\n    pass\n"),
    ("two_numbers", "x = 5 6\n"),
    ("keyword_argument_not_a_name", "f(a.b=1)\n"),
    ("operator_after_operator", "x = 1 +* 2\n"),
    ("dict_entry_without_value", "x = {1: 2, 3}\n"),
    ("slice_with_three_colons", "x = a[1:2:3:4]\n"),
];

#[test]
fn error_cases() {
    for (name, src) in CASES {
        check(name, src);
    }
}

// The generated sources below are too large for a table row.

#[test]
fn too_many_indent_levels() {
    let mut s = String::new();
    for i in 0..102 {
        s.push_str(&" ".repeat(i));
        s.push_str("if x:\n");
    }
    s.push_str(&" ".repeat(102));
    s.push_str("pass\n");
    check("too_many_indent_levels", &s);
}

// One bracket or operator per line keeps the rendered snapshot short.
#[test]
fn too_deeply_nested_brackets() {
    let src = format!("x = {}1{}\n", "(\n".repeat(300), ")".repeat(300));
    check("too_deeply_nested_brackets", &src);
}

#[test]
fn too_complex_expression() {
    let src = format!("x = ({}1)\n", "-1 +\n".repeat(400));
    check("too_complex_expression", &src);
}
