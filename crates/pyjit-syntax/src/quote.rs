//! Double-quoted string literals in the backslash style that the IR text format, Python and
//! Graphviz DOT share: `\"`, `\\` and `\n`. They differ in how (and whether) the other control
//! characters are spelled, which each caller says.

/// Pushes `c` as it stands inside a double-quoted literal: `"`, `\` and newline escaped with a
/// backslash; any other control character is left to `control`, which writes its spelling (or
/// nothing) to `out`.
pub fn push_escaped(out: &mut String, c: char, control: impl FnOnce(&mut String, char)) {
    match c {
        '"' => out.push_str("\\\""),
        '\\' => out.push_str("\\\\"),
        '\n' => out.push_str("\\n"),
        c if c.is_control() => control(out, c),
        c => out.push(c),
    }
}

/// `s` between double quotes, each character as [`push_escaped`] writes it.
pub fn double_quoted(s: &str, control: impl Fn(&mut String, char)) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        push_escaped(&mut out, c, &control);
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_quotes_backslashes_and_newlines_and_leaves_other_controls_to_the_caller() {
        let dropped = double_quoted("a\"b\\c\nd\te\u{7f}é", |_, _| {});
        assert_eq!(dropped, r#""a\"b\\c\ndeé""#);
        let tagged = double_quoted("\t\u{1}", |out, c| out.push_str(&format!("<{}>", c as u32)));
        assert_eq!(tagged, "\"<9><1>\"");
    }
}
