//! Python's `str()`, `repr()` and `format(value, spec)` of interpreter values, for `print` and the
//! `str.of` op (f-strings in messages). Tensors print as PyTorch prints them, or — for the results
//! of NumPy-style programs ([`TensorStyle::NumPy`]) — as NumPy prints arrays.

use crate::value::Value;
use pyjit_runtime::print::python_float_repr;
use pyjit_runtime::print_numpy;

/// Whose printing conventions tensors follow.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TensorStyle {
    /// PyTorch's `tensor([1., 2.])` (TorchScript-style programs).
    #[default]
    Torch,
    /// NumPy's: `repr` is `array([1., 2.])`, `str` is `[1. 2.]`, and a 0-d array stands for the
    /// NumPy scalar NumPy's operations return (`np.float64(6.0)`, `str`: `6.0`); a dtype is
    /// shown as an array's `.dtype` is (`dtype('float32')`).
    NumPy,
}

/// Python's `str(v)`.
pub fn py_str(v: &Value) -> String {
    py_str_styled(v, TensorStyle::Torch)
}

/// Python's `repr(v)` (what a container shows for its elements).
pub fn py_repr(v: &Value) -> String {
    py_repr_styled(v, TensorStyle::Torch)
}

/// Python's `str(v)`, tensors in `style`.
pub fn py_str_styled(v: &Value, style: TensorStyle) -> String {
    match (v, style) {
        (Value::Str(s), _) => s.to_string(),
        (Value::Tensor(t), TensorStyle::NumPy) => print_numpy::numpy_array_str(t),
        // `str(np.dtype('float32'))` is its name.
        (Value::DType(d), TensorStyle::NumPy) => d.name().to_string(),
        (other, _) => py_repr_styled(other, style),
    }
}

/// Python's `repr(v)`, tensors in `style`.
pub fn py_repr_styled(v: &Value, style: TensorStyle) -> String {
    let repr = |v: &Value| py_repr_styled(v, style);
    match v {
        Value::None => "None".to_string(),
        Value::Bool(true) => "True".to_string(),
        Value::Bool(false) => "False".to_string(),
        Value::Int(i) => i.to_string(),
        Value::Float(f) => python_float_repr(*f),
        Value::Str(s) => str_repr(s),
        Value::DType(d) => match style {
            TensorStyle::Torch => d.torch_name().to_string(),
            TensorStyle::NumPy => format!("dtype('{}')", d.name()),
        },
        Value::Tensor(t) => match style {
            TensorStyle::Torch => t.to_string(),
            TensorStyle::NumPy => print_numpy::numpy_repr(t),
        },
        Value::Tuple(items) => {
            let parts: Vec<String> = items.iter().map(repr).collect();
            if parts.len() == 1 {
                format!("({},)", parts[0])
            } else {
                format!("({})", parts.join(", "))
            }
        }
        Value::List(l) => {
            let parts: Vec<String> = l.snapshot().iter().map(repr).collect();
            format!("[{}]", parts.join(", "))
        }
        Value::Dict(d) => {
            let parts: Vec<String> = d
                .snapshot()
                .iter()
                .map(|(k, v)| format!("{}: {}", repr(&k.value()), repr(v)))
                .collect();
            format!("{{{}}}", parts.join(", "))
        }
        Value::Index(i) => format!("{i:?}"),
    }
}

/// Python's repr of a string: single quotes unless the text contains one and no double quote.
fn str_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::new();
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// The largest width or precision a format spec may ask for.
const MAX_FIELD: usize = 10_000;

/// A parsed format spec: `[[fill]align][sign][#][0][width][,|_][.precision][type]`.
#[derive(Debug, Default)]
struct Spec {
    fill: Option<char>,
    align: Option<char>,
    sign: Option<char>,
    alternate: bool,
    zero: bool,
    width: usize,
    grouping: Option<char>,
    precision: Option<usize>,
    ty: Option<char>,
}

fn parse_spec(spec: &str) -> Result<Spec, String> {
    let chars: Vec<char> = spec.chars().collect();
    let mut s = Spec::default();
    let mut i = 0;
    let is_align = |c: char| matches!(c, '<' | '>' | '^' | '=');
    if chars.len() >= 2 && is_align(chars[1]) {
        s.fill = Some(chars[0]);
        s.align = Some(chars[1]);
        i = 2;
    } else if !chars.is_empty() && is_align(chars[0]) {
        s.align = Some(chars[0]);
        i = 1;
    }
    if let Some(&c) = chars.get(i)
        && matches!(c, '+' | '-' | ' ')
    {
        s.sign = Some(c);
        i += 1;
    }
    if chars.get(i) == Some(&'#') {
        s.alternate = true;
        i += 1;
    }
    if chars.get(i) == Some(&'0') {
        s.zero = true;
        i += 1;
    }
    let start = i;
    while chars.get(i).is_some_and(|c| c.is_ascii_digit()) {
        i += 1;
    }
    if i > start {
        s.width = chars[start..i]
            .iter()
            .collect::<String>()
            .parse()
            .map_err(|_| "width too big")?;
    }
    if let Some(&c) = chars.get(i)
        && matches!(c, ',' | '_')
    {
        s.grouping = Some(c);
        i += 1;
    }
    if chars.get(i) == Some(&'.') {
        i += 1;
        let start = i;
        while chars.get(i).is_some_and(|c| c.is_ascii_digit()) {
            i += 1;
        }
        if i == start {
            return Err("Format specifier missing precision".to_string());
        }
        s.precision = Some(
            chars[start..i]
                .iter()
                .collect::<String>()
                .parse()
                .map_err(|_| "precision too big")?,
        );
    }
    if let Some(&c) = chars.get(i) {
        s.ty = Some(c);
        i += 1;
    }
    // Far beyond any message a program prints; refusing keeps a stray spec from allocating
    // gigabytes.
    if s.width > MAX_FIELD || s.precision.is_some_and(|p| p > MAX_FIELD) {
        return Err("Too many decimal digits in format string".to_string());
    }
    if i != chars.len() {
        return Err("Invalid format specifier".to_string());
    }
    Ok(s)
}

/// One piece of a `str.format` template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TemplatePiece {
    Literal(String),
    /// A replacement field: the positional argument it reads and its `str.of` spec (a
    /// conversion first, as [`py_format`] takes it: `{0!r:>8}` is `(0, "!r:>8")`).
    Field(usize, String),
}

/// Parses a `str.format` template with positional fields (`{}`, `{0}`, `{:spec}`, `{0!r:spec}`,
/// `{{`/`}}` escapes); the error names what is not supported, as Python's `ValueError` would.
pub fn parse_template(template: &str) -> Result<Vec<TemplatePiece>, String> {
    let mut pieces = Vec::new();
    let mut lit = String::new();
    // Python forbids mixing `{}` and `{0}`.
    let (mut auto, mut manual) = (0usize, false);
    let mut chars = template.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                lit.push('{');
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                lit.push('}');
            }
            '{' => {
                let mut field = String::new();
                loop {
                    match chars.next() {
                        Some('}') => break,
                        Some(ch) => field.push(ch),
                        None => return Err("unclosed `{`".to_string()),
                    }
                }
                let (head, mut spec) = match field.split_once(':') {
                    Some((n, sp)) => (n.to_string(), sp.to_string()),
                    None => (field.clone(), String::new()),
                };
                let name = match head.split_once('!') {
                    Some((n, c @ ("r" | "a" | "s"))) => {
                        spec = if spec.is_empty() {
                            format!("!{c}")
                        } else {
                            format!("!{c}:{spec}")
                        };
                        n.to_string()
                    }
                    Some(_) => return Err(format!("field `{{{field}}}`")),
                    None => head,
                };
                let idx = if name.is_empty() {
                    if manual {
                        return Err("cannot switch from manual field specification to automatic field numbering".to_string());
                    }
                    auto += 1;
                    auto - 1
                } else {
                    if auto > 0 {
                        return Err("cannot switch from automatic field numbering to manual field specification".to_string());
                    }
                    manual = true;
                    name.parse::<usize>()
                        .map_err(|_| format!("field `{{{field}}}`"))?
                };
                if !lit.is_empty() {
                    pieces.push(TemplatePiece::Literal(std::mem::take(&mut lit)));
                }
                pieces.push(TemplatePiece::Field(idx, spec));
            }
            '}' => return Err("single `}` encountered in format string".to_string()),
            c => lit.push(c),
        }
    }
    if !lit.is_empty() {
        pieces.push(TemplatePiece::Literal(lit));
    }
    Ok(pieces)
}

/// Python's `template.format(*args)` (positional fields only, see [`parse_template`]).
pub fn py_str_format(template: &str, args: &[Value]) -> Result<String, String> {
    let mut out = String::new();
    for p in parse_template(template)? {
        match p {
            TemplatePiece::Literal(l) => out.push_str(&l),
            TemplatePiece::Field(i, spec) => {
                let v = args.get(i).ok_or_else(|| {
                    format!("Replacement index {i} out of range for positional args tuple")
                })?;
                out.push_str(&py_format(v, &spec)?);
            }
        }
    }
    Ok(out)
}

/// Python's `ascii(v)`: `repr(v)` with every non-ASCII character escaped.
pub(crate) fn py_ascii(v: &Value) -> String {
    ascii_escape(&py_repr(v))
}

/// Escapes every non-ASCII character of `text` as Python's `ascii()` does (`\xe9`, `\u20ac`).
pub fn ascii_escape(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        match c as u32 {
            0..=0x7f => out.push(c),
            n @ 0x80..=0xff => out.push_str(&format!("\\x{n:02x}")),
            n @ 0x100..=0xffff => out.push_str(&format!("\\u{n:04x}")),
            n => out.push_str(&format!("\\U{n:08x}")),
        }
    }
    out
}

/// The conversion of an f-string replacement field (`!r`, `!a`, `!s`) at the start of a
/// `str.of` spec, and the format spec after it: `"!r:>8"` is `format(repr(v), ">8")`. A Python
/// format spec can never start with `!r`, `!a` or `!s` (a `!` fill needs an alignment next), so
/// the two cannot be confused.
fn split_conversion(spec: &str) -> (Option<char>, &str) {
    let mut chars = spec.chars();
    if chars.next() == Some('!')
        && let Some(c @ ('r' | 'a' | 's')) = chars.next()
    {
        let rest = &spec[2..];
        if rest.is_empty() {
            return (Some(c), "");
        }
        if let Some(r) = rest.strip_prefix(':') {
            return (Some(c), r);
        }
    }
    (None, spec)
}

/// Python's `format(v, spec)`, the spec possibly preceded by an f-string conversion (`!r`,
/// `!a`, `!s`, optionally followed by `:spec`); the error is a `ValueError` message.
pub fn py_format(v: &Value, spec: &str) -> Result<String, String> {
    let (conversion, spec) = split_conversion(spec);
    if let Some(c) = conversion {
        let text = match c {
            'r' => py_repr(v),
            'a' => py_ascii(v),
            _ => py_str(v),
        };
        return py_format(&Value::str(text), spec);
    }
    if spec.is_empty() {
        return Ok(py_str(v));
    }
    let s = parse_spec(spec)?;
    match v {
        // bool.__format__ with a non-empty spec is int.__format__ (`format(True, ">3")` is `"  1"`).
        Value::Bool(b) => format_int(&s, *b as i64),
        Value::Int(i) => format_int(&s, *i),
        Value::Float(f) => format_float(&s, *f),
        Value::Tensor(t) if t.numel() == 1 && t.dim() == 0 => match t.item() {
            Ok(sc) => py_format(&Value::from_scalar(sc), spec),
            Err(e) => Err(e.to_string()),
        },
        Value::Str(text) => match s.ty {
            None | Some('s') => {
                let text: String = match s.precision {
                    Some(p) => text.chars().take(p).collect(),
                    None => text.to_string(),
                };
                Ok(pad(&s, &text))
            }
            Some(c) => Err(format!(
                "Unknown format code '{c}' for object of type 'str'"
            )),
        },
        other => Err(format!(
            "unsupported format string passed to {}.__format__",
            other.type_name()
        )),
    }
}

impl Value {
    pub(crate) fn from_scalar(s: pyjit_runtime::Scalar) -> Value {
        match s {
            pyjit_runtime::Scalar::Bool(b) => Value::Bool(b),
            pyjit_runtime::Scalar::Int(i) => Value::Int(i),
            pyjit_runtime::Scalar::Float(f) => Value::Float(f),
        }
    }
}

fn group(digits: &str, sep: Option<char>, every: usize) -> String {
    let Some(sep) = sep else {
        return digits.to_string();
    };
    let n = digits.len();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (n - i).is_multiple_of(every) {
            out.push(sep);
        }
        out.push(c);
    }
    out
}

fn sign_prefix(s: &Spec, negative: bool) -> &'static str {
    if negative {
        "-"
    } else {
        match s.sign {
            Some('+') => "+",
            Some(' ') => " ",
            _ => "",
        }
    }
}

fn format_int(s: &Spec, i: i64) -> Result<String, String> {
    let mag = i.unsigned_abs();
    // The digits in a power-of-two base, grouped by four, after `prefix` with `#`.
    let radix = |prefix: &str, digits: String| {
        format!(
            "{}{}",
            if s.alternate { prefix } else { "" },
            group(&digits, s.grouping, 4)
        )
    };
    let body = match s.ty {
        None | Some('d') | Some('n') => group(&mag.to_string(), s.grouping, 3),
        Some('x') => radix("0x", format!("{mag:x}")),
        Some('X') => radix("0X", format!("{mag:X}")),
        Some('o') => radix("0o", format!("{mag:o}")),
        Some('b') => radix("0b", format!("{mag:b}")),
        Some('c') => char::from_u32(i as u32)
            .map(String::from)
            .ok_or("%c arg not in range(0x110000)")?,
        Some('e' | 'E' | 'f' | 'F' | 'g' | 'G' | '%') => return format_float(s, i as f64),
        Some(c) => {
            return Err(format!(
                "Unknown format code '{c}' for object of type 'int'"
            ));
        }
    };
    Ok(pad_number(s, sign_prefix(s, i < 0), &body))
}

/// Python's `'e'` formatting: mantissa with `p` digits after the point, exponent with a sign and
/// at least two digits.
fn fmt_exp(x: f64, p: usize, upper: bool) -> String {
    let r = format!("{:.*e}", p, x);
    let (mant, exp) = r.split_once('e').unwrap_or((&r, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let e = if upper { 'E' } else { 'e' };
    format!(
        "{mant}{e}{}{:02}",
        if exp < 0 { '-' } else { '+' },
        exp.abs()
    )
}

fn strip_zeros(s: &str) -> String {
    if let Some((mant, exp)) = s.split_once(['e', 'E']) {
        let e = &s[mant.len()..mant.len() + 1];
        return format!("{}{e}{exp}", strip_zeros(mant));
    }
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s.to_string()
    }
}

/// Python's `'g'` formatting of a finite, non-negative value.
fn fmt_general(x: f64, p: usize, alternate: bool, upper: bool) -> String {
    let p = p.max(1);
    let probe = format!("{:.*e}", p - 1, x);
    let exp: i32 = probe
        .split_once('e')
        .and_then(|(_, e)| e.parse().ok())
        .unwrap_or(0);
    let out = if -4 <= exp && exp < p as i32 {
        format!("{:.*}", (p as i32 - 1 - exp).max(0) as usize, x)
    } else {
        fmt_exp(x, p - 1, upper)
    };
    if alternate { out } else { strip_zeros(&out) }
}

fn format_float(s: &Spec, x: f64) -> Result<String, String> {
    let neg = x.is_sign_negative() && !x.is_nan();
    let a = x.abs();
    let upper = matches!(s.ty, Some('E' | 'F' | 'G'));
    let body = if !a.is_finite() {
        let t = if a.is_nan() { "nan" } else { "inf" };
        let t = if upper {
            t.to_uppercase()
        } else {
            t.to_string()
        };
        if s.ty == Some('%') {
            format!("{t}%")
        } else {
            t
        }
    } else {
        match s.ty {
            Some('f' | 'F') => format!("{:.*}", s.precision.unwrap_or(6), a),
            Some('e' | 'E') => fmt_exp(a, s.precision.unwrap_or(6), upper),
            Some('g' | 'G') => fmt_general(a, s.precision.unwrap_or(6), s.alternate, upper),
            Some('%') => format!("{:.*}%", s.precision.unwrap_or(6), a * 100.0),
            None => match s.precision {
                // Like 'g' but a fixed-point result keeps at least one digit after the point.
                Some(p) => {
                    let g = fmt_general(a, p, s.alternate, false);
                    if g.contains(['.', 'e', 'n', 'i']) {
                        g
                    } else {
                        format!("{g}.0")
                    }
                }
                None => python_float_repr(a),
            },
            Some(c) => {
                return Err(format!(
                    "Unknown format code '{c}' for object of type 'float'"
                ));
            }
        }
    };
    let body = match s.grouping {
        Some(sep) if a.is_finite() => {
            let split = body
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(body.len());
            format!("{}{}", group(&body[..split], Some(sep), 3), &body[split..])
        }
        _ => body,
    };
    Ok(pad_number(s, sign_prefix(s, neg), &body))
}

/// Pads a number: `=` alignment (or a `0` flag) pads between the sign and the digits.
fn pad_number(s: &Spec, sign: &str, body: &str) -> String {
    let len = sign.chars().count() + body.chars().count();
    if s.width <= len {
        return format!("{sign}{body}");
    }
    let fill_n = s.width - len;
    let (fill, align) = match (s.align, s.zero) {
        (None, true) => (s.fill.unwrap_or('0'), '='),
        (a, _) => (
            s.fill.unwrap_or(if s.zero { '0' } else { ' ' }),
            a.unwrap_or('>'),
        ),
    };
    if align == '=' {
        return format!("{sign}{}{body}", fill.to_string().repeat(fill_n));
    }
    pad_with(fill, align, fill_n, &format!("{sign}{body}"))
}

fn pad(s: &Spec, text: &str) -> String {
    let len = text.chars().count();
    if s.width <= len {
        return text.to_string();
    }
    let align = s.align.unwrap_or('<');
    pad_with(s.fill.unwrap_or(' '), align, s.width - len, text)
}

fn pad_with(fill: char, align: char, n: usize, text: &str) -> String {
    let f = |k: usize| fill.to_string().repeat(k);
    match align {
        '<' => format!("{text}{}", f(n)),
        '^' => format!("{}{text}{}", f(n / 2), f(n - n / 2)),
        _ => format!("{}{text}", f(n)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fmt(v: Value, spec: &str) -> String {
        py_format(&v, spec).unwrap()
    }

    #[test]
    fn specs_like_python() {
        assert_eq!(fmt(Value::Float(1.23456), ".2f"), "1.23");
        assert_eq!(fmt(Value::Float(-1.23456), "8.3f"), "  -1.235");
        assert_eq!(fmt(Value::Float(1234.5), ",.1f"), "1,234.5");
        assert_eq!(fmt(Value::Float(0.000123), "e"), "1.230000e-04");
        assert_eq!(fmt(Value::Float(12345678.0), "g"), "1.23457e+07");
        assert_eq!(fmt(Value::Float(0.5), "g"), "0.5");
        assert_eq!(fmt(Value::Float(0.25), "%"), "25.000000%");
        assert_eq!(fmt(Value::Float(2.0), ".3"), "2.0");
        assert_eq!(fmt(Value::Float(f64::INFINITY), ".2f"), "inf");
        assert_eq!(fmt(Value::Int(42), "05d"), "00042");
        assert_eq!(fmt(Value::Int(-42), "05d"), "-0042");
        assert_eq!(fmt(Value::Int(255), "#x"), "0xff");
        assert_eq!(fmt(Value::Int(1234567), ","), "1,234,567");
        assert_eq!(fmt(Value::Int(7), "*^5"), "**7**");
        assert_eq!(fmt(Value::Int(7), ".2f"), "7.00");
        assert_eq!(fmt(Value::str("ab"), ">4"), "  ab");
        assert_eq!(fmt(Value::Bool(true), ""), "True");
        assert!(py_format(&Value::Int(1), "q").is_err());
        assert!(py_format(&Value::Int(1), ".").is_err());
        assert!(py_format(&Value::Float(1.0), ".1000000000f").is_err());
        assert!(py_format(&Value::Int(1), "999999999999").is_err());
    }

    #[test]
    fn conversions_like_fstrings() {
        // f"{s!r}", f"{s!r:>8}", f"{x!s:^5}", f"{s!a}", f"{n!r}"
        assert_eq!(fmt(Value::str("ab"), "!r"), "'ab'");
        assert_eq!(fmt(Value::str("ab"), "!r:>6"), "  'ab'");
        assert_eq!(fmt(Value::Float(1.5), "!s:^5"), " 1.5 ");
        assert_eq!(fmt(Value::str("é\n"), "!a"), "'\\xe9\\n'");
        assert_eq!(fmt(Value::Int(3), "!r"), "3");
        // a `!` fill with an alignment is a plain spec
        assert_eq!(fmt(Value::Int(3), "!<3"), "3!!");
        assert!(py_format(&Value::str("a"), "!r:d").is_err());
    }

    #[test]
    fn reprs() {
        assert_eq!(py_repr(&Value::tuple(vec![Value::Int(1)])), "(1,)");
        assert_eq!(
            py_str(&Value::list(vec![
                Value::Float(2.0),
                Value::str("a'b"),
                Value::None
            ])),
            "[2.0, \"a'b\", None]"
        );
    }
}
