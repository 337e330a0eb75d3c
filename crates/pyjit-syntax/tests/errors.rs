//! Rendered syntax diagnostics, checked byte for byte (naga's `wgsl_errors.rs` is the model):
//! what a user sees is tested like any other output. Re-bless with `INSTA_UPDATE=always`.

mod common;

macro_rules! error_case {
    ($name:ident, $src:expr) => {
        #[test]
        fn $name() {
            let rendered = common::render_errors(stringify!($name), $src);
            insta::assert_snapshot!(stringify!($name), rendered);
        }
    };
}

// Indentation.
error_case!(unexpected_indent, "def f(x):\n    y = 1\n      z = 2\n");
error_case!(unexpected_indent_first_line, "  x = 1\n");
error_case!(
    unindent_mismatch,
    "def f(x):\n    if x:\n        y = 1\n      z = 2\n"
);
error_case!(tabs_spaces_mixed, "def f(x):\n    y = 1\n\tz = 2\n");
error_case!(tabs_after_spaces_block, "if x:\n        a = 1\n\tb = 2\n");
error_case!(def_without_body, "def f():\nx = 1\n");
error_case!(def_without_body_at_eof, "def f(x: int) -> int:\n");
error_case!(if_without_body, "if x > 0:\n\nprint(x)\n");
error_case!(
    for_without_body_nested,
    "def f():\n    for i in range(3):\n    return 1\n"
);
error_case!(too_many_indent_levels, &{
    let mut s = String::new();
    for i in 0..102 {
        s.push_str(&" ".repeat(i));
        s.push_str("if x:\n");
    }
    s.push_str(&" ".repeat(102));
    s.push_str("pass\n");
    s
});

// Brackets.
error_case!(unclosed_paren_next_line, "x = (1, 2\ny = 3\n");
error_case!(unclosed_paren_eof, "x = foo(1, 2");
error_case!(
    unclosed_bracket_in_def,
    "def f(x):\n    return [x, x\n\ndef g():\n    pass\n"
);
error_case!(unclosed_brace, "d = {'a': 1,\n");
error_case!(stray_close_paren, "x = 1)\n");
error_case!(stray_close_bracket, "def f():\n    return x]\n");
error_case!(mismatched_brackets, "x = (1, 2]\n");
// One bracket or operator per line keeps the rendered snapshot short.
error_case!(
    too_deeply_nested_brackets,
    &format!("x = {}1{}\n", "(\n".repeat(300), ")".repeat(300))
);
error_case!(
    too_complex_expression,
    &format!("x = ({}1)\n", "-1 +\n".repeat(400))
);

// Strings.
error_case!(unterminated_string, "x = \"abc\ny = 1\n");
error_case!(unterminated_single_quote, "print('hello)\n");
error_case!(
    unterminated_triple_string,
    "def f():\n    \"\"\"docstring\n    return 1\n"
);
error_case!(bad_hex_escape, "x = \"\\x4\"\n");
error_case!(bytes_non_ascii, "x = b\"caf\u{e9}\"\n");
error_case!(mixed_bytes_and_str, "x = b\"a\" \"b\"\n");
error_case!(fstring_empty_field, "x = f\"{}\"\n");
error_case!(fstring_unclosed_field, "x = f\"{a\"\n");
error_case!(fstring_single_close_brace, "x = f\"a } b\"\n");
error_case!(fstring_bad_conversion, "x = f\"{a!x}\"\n");
error_case!(fstring_bad_expression, "x = f\"{a +}\"\n");

// Numbers and characters.
error_case!(hex_without_digits, "x = 0x\n");
error_case!(double_underscore_in_number, "x = 1__0\n");
error_case!(trailing_underscore_in_number, "x = 100_\n");
error_case!(leading_zero_decimal, "x = 09\n");
error_case!(binary_bad_digit, "x = 0b102\n");
error_case!(name_starting_with_digit, "x = 1abc\n");
error_case!(dollar_sign, "x = $y\n");
error_case!(exclamation_not, "if !x:\n    pass\n");
error_case!(stray_backslash, "x = 1 \\ 2\n");
error_case!(
    integer_too_large,
    "x = 9999999999999999999999999999999999999999999\n"
);

// Missing pieces.
error_case!(missing_colon_if, "if x\n    pass\n");
error_case!(missing_colon_def, "def f(x)\n    return x\n");
error_case!(missing_colon_for, "for i in range(3)\n    pass\n");
error_case!(missing_colon_while, "while x > 0\n    x -= 1\n");
error_case!(missing_colon_class, "class A\n    pass\n");
error_case!(assignment_in_condition, "if x = 1:\n    pass\n");
error_case!(missing_expression_after_assign, "x = \n");
error_case!(missing_expression_after_operator, "y = 1 +\n");
error_case!(
    missing_expression_in_return_tuple,
    "def f():\n    return 1, , 2\n"
);
error_case!(missing_comma_in_list, "x = [1, 2 3]\n");
error_case!(empty_call_argument, "f(1, , 2)\n");
error_case!(print_statement, "print \"hello\"\n");

// Misplaced keywords.
error_case!(else_without_if, "else:\n    pass\n");
error_case!(elif_without_if, "x = 1\nelif x:\n    pass\n");
error_case!(
    else_after_dedent_mismatch,
    "def f(x):\n    if x:\n        return 1\nelse:\n    return 2\n"
);
error_case!(except_without_try, "except ValueError:\n    pass\n");
error_case!(keyword_as_name, "def = 3\n");
error_case!(class_keyword_as_param, "def f(class):\n    pass\n");

// Invalid targets.
error_case!(assign_to_call, "f() = 1\n");
error_case!(assign_to_literal, "1 = x\n");
error_case!(assign_to_comparison, "a == b = 1\n");
error_case!(assign_to_operator, "a + 1 = 2\n");
error_case!(augassign_to_tuple, "a, b += 1\n");
error_case!(annotate_tuple, "a, b: int = 1, 2\n");
error_case!(for_target_literal, "for 1 in x:\n    pass\n");
error_case!(del_call, "del f()\n");
error_case!(starred_alone, "*a = [1, 2]\n");
error_case!(walrus_on_attribute, "if (a.b := 1):\n    pass\n");

// Parameters and arguments.
error_case!(default_before_plain_param, "def f(a=1, b):\n    pass\n");
error_case!(param_after_kwargs, "def f(**kw, a):\n    pass\n");
error_case!(bare_star_without_kwonly, "def f(a, *):\n    pass\n");
error_case!(positional_after_keyword, "f(a=1, 2)\n");
error_case!(repeated_keyword, "f(a=1, a=2)\n");
error_case!(unparenthesized_generator, "f(x for x in y, 1)\n");

// More missing pieces.
error_case!(missing_else_in_conditional, "x = 1 if y\n");
error_case!(try_without_except, "try:\n    pass\nx = 1\n");
error_case!(attribute_without_name, "x = a.\n");
error_case!(import_without_name, "from x import\n");
error_case!(while_without_condition, "while:\n    pass\n");
error_case!(comprehension_without_iterable, "x = [i for i in]\n");
error_case!(annotation_missing, "def f(x:):\n    pass\n");
error_case!(two_numbers, "x = 5 6\n");
error_case!(keyword_argument_not_a_name, "f(a.b=1)\n");
error_case!(operator_after_operator, "x = 1 +* 2\n");
error_case!(dict_entry_without_value, "x = {1: 2, 3}\n");
error_case!(slice_with_three_colons, "x = a[1:2:3:4]\n");
