//! The command-line argument syntax of `pyjit run` (and of the corpus's `args.txt`).
//!
//! An ARG is parsed in two steps. [`parse_arg`] turns the text into an [`ArgLit`] tree without
//! looking at the function (so syntax errors are reported before compiling anything); the facade
//! then fits the tree to the parameter's declared type, which is where `1` becomes a float for a
//! `float` parameter and where a misfit is reported with the parameter's name.
//!
//! Grammar (whitespace around items is ignored):
//! ```text
//! arg   := list | tuple | atom
//! list  := '[' [arg (',' arg)* [',']] ']'
//! tuple := '(' [arg (',' arg)* [',']] ')'
//! atom  := path ending in ".npy"       -> tensor loaded from the file
//!        | integer literal             -> int    (`-3`, `0x1f`, `1_000`)
//!        | float literal               -> float  (has `.`, `e`/`E`, or is `inf`/`nan`, signed)
//!        | true | false (any case)     -> bool
//!        | none (any case)             -> None
//! ```

use pyjit_interp::Value;
use pyjit_ir::Type;
use std::fmt;
use std::path::{Path, PathBuf};

/// One parsed ARG, before it is fitted to a parameter type.
#[derive(Clone, Debug, PartialEq)]
pub enum ArgLit {
    /// A `.npy` file to load as a tensor.
    Npy(PathBuf),
    /// An integer literal (`3`, `-2`).
    Int(i64),
    /// A float literal (`0.5`, `1e-3`, `inf`, `nan`).
    Float(f64),
    /// `True` or `False`.
    Bool(bool),
    /// `None`.
    None,
    /// `[a, b, ...]`.
    List(Vec<ArgLit>),
    /// `(a, b, ...)`.
    Tuple(Vec<ArgLit>),
}

impl fmt::Display for ArgLit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn seq(
            f: &mut fmt::Formatter<'_>,
            items: &[ArgLit],
            open: &str,
            close: &str,
        ) -> fmt::Result {
            f.write_str(open)?;
            for (i, it) in items.iter().enumerate() {
                if i > 0 {
                    f.write_str(",")?;
                }
                write!(f, "{it}")?;
            }
            f.write_str(close)
        }
        match self {
            ArgLit::Npy(p) => write!(f, "{}", p.display()),
            ArgLit::Int(i) => write!(f, "{i}"),
            ArgLit::Float(x) => write!(f, "{x:?}"),
            ArgLit::Bool(b) => write!(f, "{b}"),
            ArgLit::None => f.write_str("none"),
            ArgLit::List(items) => seq(f, items, "[", "]"),
            ArgLit::Tuple(items) => seq(f, items, "(", ")"),
        }
    }
}

impl ArgLit {
    /// A short description of what kind of value this is, for error messages.
    pub fn kind(&self) -> &'static str {
        match self {
            ArgLit::Npy(_) => "a tensor (.npy file)",
            ArgLit::Int(_) => "an int",
            ArgLit::Float(_) => "a float",
            ArgLit::Bool(_) => "a bool",
            ArgLit::None => "None",
            ArgLit::List(_) => "a list",
            ArgLit::Tuple(_) => "a tuple",
        }
    }
}

/// Parses one ARG. The error says what was wrong and where in the text.
pub fn parse_arg(text: &str) -> Result<ArgLit, String> {
    let mut p = Parser { text, pos: 0 };
    let v = p.arg(0)?;
    p.skip_ws();
    if p.pos != text.len() {
        return Err(format!(
            "argument `{text}`: unexpected `{}` at column {}",
            &text[p.pos..],
            p.pos + 1
        ));
    }
    Ok(v)
}

/// Nesting deeper than this is refused rather than risking the stack on hostile input.
const MAX_DEPTH: usize = 64;

struct Parser<'a> {
    text: &'a str,
    pos: usize,
}

impl Parser<'_> {
    fn skip_ws(&mut self) {
        while let Some(c) = self.peek() {
            if c.is_whitespace() {
                self.pos += c.len_utf8();
            } else {
                break;
            }
        }
    }

    fn peek(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    fn err(&self, what: &str) -> String {
        format!(
            "argument `{}`: {what} at column {}",
            self.text,
            self.pos + 1
        )
    }

    fn arg(&mut self, depth: usize) -> Result<ArgLit, String> {
        if depth > MAX_DEPTH {
            return Err(self.err("nesting too deep"));
        }
        self.skip_ws();
        match self.peek() {
            Some('[') => {
                self.pos += 1;
                Ok(ArgLit::List(self.seq(']', depth)?))
            }
            Some('(') => {
                self.pos += 1;
                Ok(ArgLit::Tuple(self.seq(')', depth)?))
            }
            Some(_) => self.atom(),
            None => Err(self.err("expected a value")),
        }
    }

    fn seq(&mut self, close: char, depth: usize) -> Result<Vec<ArgLit>, String> {
        let mut items = Vec::new();
        loop {
            self.skip_ws();
            if self.peek() == Some(close) {
                self.pos += 1;
                return Ok(items);
            }
            items.push(self.arg(depth + 1)?);
            self.skip_ws();
            match self.peek() {
                Some(',') => self.pos += 1,
                Some(c) if c == close => {
                    self.pos += 1;
                    return Ok(items);
                }
                Some(c) => return Err(self.err(&format!("expected `,` or `{close}`, found `{c}`"))),
                None => return Err(self.err(&format!("missing `{close}`"))),
            }
        }
    }

    fn atom(&mut self) -> Result<ArgLit, String> {
        let start = self.pos;
        while let Some(c) = self.peek() {
            if matches!(c, ',' | '[' | ']' | '(' | ')') || c.is_whitespace() {
                break;
            }
            self.pos += c.len_utf8();
        }
        let word = &self.text[start..self.pos];
        if word.is_empty() {
            return Err(self.err("expected a value"));
        }
        atom(word).ok_or_else(|| {
            format!(
                "argument `{}`: `{word}` is not a value (expected a .npy path, an int, a float, \
                 true/false, none, [list] or (tuple))",
                self.text
            )
        })
    }
}

fn atom(word: &str) -> Option<ArgLit> {
    if word.ends_with(".npy") {
        return Some(ArgLit::Npy(PathBuf::from(word)));
    }
    let lower = word.to_ascii_lowercase();
    match lower.as_str() {
        "true" => return Some(ArgLit::Bool(true)),
        "false" => return Some(ArgLit::Bool(false)),
        "none" => return Some(ArgLit::None),
        _ => {}
    }
    if let Some(i) = parse_int(&lower) {
        return Some(ArgLit::Int(i));
    }
    parse_float(&lower).map(ArgLit::Float)
}

fn parse_int(s: &str) -> Option<i64> {
    let (neg, body) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    let (radix, digits) = if let Some(d) = body.strip_prefix("0x") {
        (16, d)
    } else if let Some(d) = body.strip_prefix("0b") {
        (2, d)
    } else if let Some(d) = body.strip_prefix("0o") {
        (8, d)
    } else {
        (10, body)
    };
    if digits.is_empty() || digits.starts_with('_') || digits.ends_with('_') {
        return None;
    }
    let clean: String = digits.chars().filter(|&c| c != '_').collect();
    if !clean.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    // Parse the magnitude as u64 so that i64::MIN is accepted.
    let mag = u64::from_str_radix(&clean, radix).ok()?;
    if neg {
        if mag <= i64::MAX as u64 + 1 {
            Some((mag as i64).wrapping_neg())
        } else {
            None
        }
    } else {
        i64::try_from(mag).ok()
    }
}

fn parse_float(s: &str) -> Option<f64> {
    let body = s.trim_start_matches(['+', '-']);
    if matches!(body, "inf" | "infinity" | "nan") {
        return s.parse::<f64>().ok();
    }
    if !(s.contains('.') || s.contains('e')) {
        return None;
    }
    // Rust's float grammar is close to Python's; underscores are Python-only, so drop them.
    if !body
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_digit() || c == '.')
    {
        return None;
    }
    let clean: String = s.chars().filter(|&c| c != '_').collect();
    clean.parse::<f64>().ok()
}

/// Fits a parsed ARG to the declared type of parameter `param`, loading `.npy` files relative to
/// `base` (the current directory for `pyjit run`, the case folder for the corpus). An `int` is
/// accepted where a `float` is expected (Python's implicit conversion). The error names the
/// parameter, its type and what was given.
pub fn fit_arg(lit: &ArgLit, ty: &Type, param: &str, base: &Path) -> Result<Value, String> {
    let misfit = || {
        format!(
            "argument `{lit}` does not fit parameter `{param}`: it is {}, the parameter is {}",
            lit.kind(),
            describe(ty)
        )
    };
    Ok(match (ty, lit) {
        (Type::Optional(_) | Type::None, ArgLit::None) => Value::None,
        (Type::Optional(inner), lit) => fit_arg(lit, inner, param, base)?,
        (Type::Tensor(_), ArgLit::Npy(path)) => {
            let full = base.join(path);
            let t = pyjit_runtime::npy::read_npy(&full).map_err(|e| {
                format!("parameter `{param}`: cannot load `{}`: {e}", full.display())
            })?;
            Value::Tensor(t)
        }
        (Type::Int, ArgLit::Int(i)) => Value::Int(*i),
        (Type::Float, ArgLit::Float(x)) => Value::Float(*x),
        (Type::Float, ArgLit::Int(i)) => Value::Float(*i as f64),
        (Type::Bool, ArgLit::Bool(b)) => Value::Bool(*b),
        (Type::List(elem), ArgLit::List(items)) => Value::list(
            items
                .iter()
                .map(|it| fit_arg(it, elem, param, base))
                .collect::<Result<_, _>>()?,
        ),
        (Type::Tuple(tys), ArgLit::Tuple(items)) if tys.len() == items.len() => Value::tuple(
            items
                .iter()
                .zip(tys)
                .map(|(it, t)| fit_arg(it, t, param, base))
                .collect::<Result<_, _>>()?,
        ),
        _ => return Err(misfit()),
    })
}

/// The type as a user reads it, with a hint of how to spell such an ARG.
fn describe(ty: &Type) -> String {
    let hint = match ty {
        Type::Tensor(_) => " (pass a .npy file)",
        Type::Float => " (pass e.g. 1.5)",
        Type::Int => " (pass e.g. 3)",
        Type::Bool => " (pass true or false)",
        Type::List(_) => " (pass e.g. [a,b])",
        Type::Tuple(_) => " (pass e.g. (a,b))",
        _ => "",
    };
    format!("`{ty}`{hint}")
}

/// Splits an `args.txt` line list into words the way a shell would for our ARG syntax: on
/// whitespace, except inside brackets (so `[1, 2]` stays one ARG).
pub fn split_words(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut depth: i32 = 0;
    for c in line.chars() {
        match c {
            '[' | '(' => depth += 1,
            ']' | ')' => depth -= 1,
            _ => {}
        }
        if c.is_whitespace() && depth <= 0 {
            if !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
        } else {
            cur.push(c);
        }
    }
    if depth != 0 {
        return Err(format!("unbalanced brackets in `{line}`"));
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> ArgLit {
        parse_arg(s).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn atoms() {
        assert_eq!(p("3"), ArgLit::Int(3));
        assert_eq!(p("-3"), ArgLit::Int(-3));
        assert_eq!(p("0x1f"), ArgLit::Int(31));
        assert_eq!(p("1_000"), ArgLit::Int(1000));
        assert_eq!(p("-9223372036854775808"), ArgLit::Int(i64::MIN));
        assert_eq!(p("2.5"), ArgLit::Float(2.5));
        assert_eq!(p("1e-3"), ArgLit::Float(1e-3));
        assert_eq!(p(".5"), ArgLit::Float(0.5));
        assert_eq!(p("3."), ArgLit::Float(3.0));
        assert_eq!(p("-inf"), ArgLit::Float(f64::NEG_INFINITY));
        assert!(matches!(p("nan"), ArgLit::Float(x) if x.is_nan()));
        assert_eq!(p("True"), ArgLit::Bool(true));
        assert_eq!(p("FALSE"), ArgLit::Bool(false));
        assert_eq!(p("None"), ArgLit::None);
        assert_eq!(p("dir/x.npy"), ArgLit::Npy("dir/x.npy".into()));
    }

    #[test]
    fn nested() {
        assert_eq!(
            p("[1, (2.0, true), []]"),
            ArgLit::List(vec![
                ArgLit::Int(1),
                ArgLit::Tuple(vec![ArgLit::Float(2.0), ArgLit::Bool(true)]),
                ArgLit::List(vec![]),
            ])
        );
        assert_eq!(p("(1,)"), ArgLit::Tuple(vec![ArgLit::Int(1)]));
        assert_eq!(
            p(" ( a.npy ,b.npy ) "),
            ArgLit::Tuple(vec![
                ArgLit::Npy("a.npy".into()),
                ArgLit::Npy("b.npy".into())
            ])
        );
    }

    #[test]
    fn errors() {
        for bad in [
            "",
            "[1,",
            "[1 2]",
            "(1))",
            "abc",
            "1x",
            "e5",
            "x.np",
            "99999999999999999999",
            "--1",
            "0x",
            "1__",
            "[,]",
        ] {
            assert!(parse_arg(bad).is_err(), "accepted {bad:?}");
        }
        let deep = "[".repeat(1000) + &"]".repeat(1000);
        assert!(parse_arg(&deep).is_err());
    }

    #[test]
    fn words() {
        assert_eq!(
            split_words("f  x.npy [1, 2]  (3, [4, 5]) 2.0").unwrap(),
            vec!["f", "x.npy", "[1, 2]", "(3, [4, 5])", "2.0"]
        );
        assert!(split_words("f [1, 2").is_err());
    }
}
