//! The static types of the scripted language (LANGUAGE.md "Types") and their parsing from
//! annotations, mypy-style type comments and `torch.jit.annotate`.

use crate::names::Imports;
use pyjit_syntax::Diagnostic;
use pyjit_syntax::ast::{Expr, ExprKind};
use std::fmt;

/// A frontend type. It mirrors the IR's generic types plus `Str` (messages only) and `DType`
/// (the value of `torch.float32` & co., which exists only as an argument to creation/conversion ops).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    Tensor,
    Int,
    Float,
    Bool,
    Str,
    None,
    DType,
    /// A `torch.device`: the CPU is the only one, so its IR value is the string `"cpu"`.
    Device,
    Tuple(Vec<Ty>),
    List(Box<Ty>),
    /// `Dict[K, V]` with `int` or `str` keys (TorchScript's dictionaries).
    Dict(Box<Ty>, Box<Ty>),
    Optional(Box<Ty>),
}

impl Ty {
    /// Whether `str()` of a value of this type shows an array or a dtype (whose text NumPy and
    /// PyTorch write differently).
    pub fn shows_array(&self) -> bool {
        match self {
            Ty::Tensor | Ty::DType => true,
            Ty::Tuple(ts) => ts.iter().any(Ty::shows_array),
            Ty::List(t) | Ty::Optional(t) => t.shows_array(),
            Ty::Dict(k, v) => k.shows_array() || v.shows_array(),
            Ty::Int | Ty::Float | Ty::Bool | Ty::Str | Ty::None | Ty::Device => false,
        }
    }

    pub fn list(t: Ty) -> Ty {
        Ty::List(Box::new(t))
    }

    pub fn optional(t: Ty) -> Ty {
        match t {
            Ty::Optional(_) | Ty::None => t,
            t => Ty::Optional(Box::new(t)),
        }
    }

    pub fn is_scalar(&self) -> bool {
        matches!(self, Ty::Int | Ty::Float | Ty::Bool)
    }

    pub fn is_number(&self) -> bool {
        matches!(self, Ty::Int | Ty::Float)
    }

    /// Whether a value of type `self` may be used where `expected` is required, without a
    /// conversion op: equality, `None`/`T` into `Optional[T]`, and the same rule inside containers'
    /// element types only by equality (lists are invariant, as in TorchScript).
    pub(crate) fn is_subtype_of(&self, expected: &Ty) -> bool {
        if self == expected {
            return true;
        }
        match (self, expected) {
            (Ty::None, Ty::Optional(_)) => true,
            (t, Ty::Optional(inner)) => t.is_subtype_of(inner),
            (Ty::Tuple(a), Ty::Tuple(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.is_subtype_of(y))
            }
            _ => false,
        }
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ty::Tensor => write!(f, "Tensor"),
            Ty::Int => write!(f, "int"),
            Ty::Float => write!(f, "float"),
            Ty::Bool => write!(f, "bool"),
            Ty::Str => write!(f, "str"),
            Ty::None => write!(f, "None"),
            Ty::DType => write!(f, "dtype"),
            Ty::Device => write!(f, "Device"),
            Ty::Tuple(ts) => {
                write!(f, "Tuple[")?;
                pyjit_ir::write_comma_separated(f, ts)?;
                if ts.is_empty() {
                    write!(f, "()")?;
                }
                write!(f, "]")
            }
            Ty::List(t) => write!(f, "List[{t}]"),
            Ty::Dict(k, v) => write!(f, "Dict[{k}, {v}]"),
            Ty::Optional(t) => write!(f, "Optional[{t}]"),
        }
    }
}

/// Parses a type annotation expression.
pub(crate) fn parse_annotation(e: &Expr, imports: &Imports) -> Result<Ty, Diagnostic> {
    let bad = |what: &str| {
        Diagnostic::error(format!("unsupported type annotation `{what}`"))
            .with_primary(e.span, "not a type the compiler knows")
            .with_help("use Tensor, int, float, bool, List[T], Tuple[T, ...], Optional[T] or None")
    };
    match &e.kind {
        ExprKind::None => Ok(Ty::None),
        ExprKind::Str(s) => {
            // A string annotation (forward reference) is parsed as the expression it spells.
            match forward_ref_expr(s, e.span) {
                Some(inner) => parse_annotation(&inner, imports),
                None => Err(bad(s)),
            }
        }
        ExprKind::Name(_) | ExprKind::Attribute { .. } => {
            let Some(dotted) = e.dotted_name() else {
                return Err(bad("?"));
            };
            match imports.resolve_type_name(&dotted).as_deref() {
                Some("Tensor") => Ok(Ty::Tensor),
                Some("int") => Ok(Ty::Int),
                Some("float") => Ok(Ty::Float),
                Some("bool") => Ok(Ty::Bool),
                Some("str") => Ok(Ty::Str),
                Some("dtype") => Ok(Ty::DType),
                Some("Device") => Ok(Ty::Device),
                Some("None") => Ok(Ty::None),
                Some("Any") => Err(Diagnostic::error("`Any` is not a supported type")
                    .with_primary(e.span, "values need one static type")
                    .with_help(
                        "annotate the concrete type (Tensor, int, float, bool, List[T], …)",
                    )),
                Some("List") | Some("Tuple") | Some("Optional") | Some("Dict") => Err(
                    Diagnostic::error(format!("`{dotted}` needs type arguments"))
                        .with_primary(e.span, "missing `[...]`")
                        .with_help(format!(
                            "write `{dotted}[int]` (or the element type you mean)"
                        )),
                ),
                _ => Err(bad(&dotted)),
            }
        }
        ExprKind::Subscript { value, index } => {
            let Some(dotted) = value.dotted_name() else {
                return Err(bad("?"));
            };
            let args: Vec<&Expr> = match &index.kind {
                ExprKind::Tuple(items) => items.iter().collect(),
                _ => vec![index.as_ref()],
            };
            match imports.resolve_type_name(&dotted).as_deref() {
                Some("List") => {
                    if args.len() != 1 {
                        return Err(Diagnostic::error("`List` takes exactly one type argument")
                            .with_primary(index.span, type_argument_count(args.len())));
                    }
                    Ok(Ty::list(parse_annotation(args[0], imports)?))
                }
                Some("Optional") => {
                    if args.len() != 1 {
                        return Err(Diagnostic::error(
                            "`Optional` takes exactly one type argument",
                        )
                        .with_primary(index.span, type_argument_count(args.len())));
                    }
                    Ok(Ty::optional(parse_annotation(args[0], imports)?))
                }
                Some("Tuple") => {
                    // `Tuple[()]` is the empty tuple.
                    if let [one] = args.as_slice()
                        && matches!(&one.kind, ExprKind::Tuple(v) if v.is_empty())
                    {
                        return Ok(Ty::Tuple(vec![]));
                    }
                    if args.iter().any(|a| matches!(a.kind, ExprKind::Ellipsis)) {
                        return Err(Diagnostic::error(
                            "variable-length tuples `Tuple[T, ...]` are not supported",
                        )
                        .with_primary(index.span, "tuples have a fixed length")
                        .with_help("use `List[T]` for a sequence of unknown length"));
                    }
                    let ts = args
                        .iter()
                        .map(|a| parse_annotation(a, imports))
                        .collect::<Result<Vec<_>, _>>()?;
                    Ok(Ty::Tuple(ts))
                }
                Some("Union") => Err(Diagnostic::error("`Union` types are not supported")
                    .with_primary(e.span, "values need one static type")
                    .with_help("use `Optional[T]` for \"T or None\"; otherwise split the function per type")),
                Some("Dict") => {
                    let [k, v] = args.as_slice() else {
                        return Err(Diagnostic::error("`Dict` takes two type arguments")
                            .with_primary(index.span, type_argument_count(args.len()))
                            .with_help("write `Dict[str, Tensor]` (key type, value type)"));
                    };
                    let kt = parse_annotation(k, imports)?;
                    if !matches!(kt, Ty::Int | Ty::Str) {
                        return Err(Diagnostic::error(format!(
                            "dictionary keys of type `{kt}` are not supported"
                        ))
                        .with_primary(k.span, "key type")
                        .with_help("use `str` or `int` keys"));
                    }
                    Ok(Ty::Dict(Box::new(kt), Box::new(parse_annotation(v, imports)?)))
                }
                _ => Err(bad(&dotted)),
            }
        }
        _ => Err(bad("expression")),
    }
}

/// Forward references in string annotations are rare; we accept only bare names in them.
fn forward_ref_expr(s: &str, span: pyjit_syntax::Span) -> Option<Expr> {
    let s = s.trim();
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
    {
        let mut parts = s.split('.');
        let first = parts.next()?;
        let mut e = Expr::new(ExprKind::Name(first.to_string()), span);
        for p in parts {
            e = Expr::new(
                ExprKind::Attribute {
                    value: Box::new(e),
                    attr: pyjit_syntax::ast::Ident {
                        name: p.to_string(),
                        span,
                    },
                },
                span,
            );
        }
        Some(e)
    } else {
        None
    }
}

/// A parsed function type comment: `(int, Tensor) -> Tensor`.
pub(crate) struct FnTypeComment {
    pub params: Vec<Ty>,
    pub ret: Ty,
}

/// Parses the text of a `# type: (...) -> T` comment on a `def`.
pub(crate) fn parse_fn_type_comment(
    text: &str,
    span: pyjit_syntax::Span,
    imports: &Imports,
) -> Result<FnTypeComment, Diagnostic> {
    parse_whole(text, span, imports, |p| {
        p.expect("(")?;
        let mut params = Vec::new();
        if !p.eat(")") {
            loop {
                params.push(p.ty()?);
                if p.eat(")") {
                    break;
                }
                p.expect(",")?;
                if p.eat(")") {
                    break;
                }
            }
        }
        p.expect("->")?;
        let ret = p.ty()?;
        Ok(FnTypeComment { params, ret })
    })
}

/// Parses the text of an assignment's `# type: T` comment.
pub(crate) fn parse_type_comment(
    text: &str,
    span: pyjit_syntax::Span,
    imports: &Imports,
) -> Result<Ty, Diagnostic> {
    parse_whole(text, span, imports, TypeTextParser::ty)
}

/// Parses all of a type comment's `text` with `parse` (anything left over is an error).
fn parse_whole<'a, T>(
    text: &'a str,
    span: pyjit_syntax::Span,
    imports: &'a Imports,
    parse: impl FnOnce(&mut TypeTextParser<'a>) -> Result<T, Diagnostic>,
) -> Result<T, Diagnostic> {
    let mut p = TypeTextParser::new(text, span, imports);
    let t = parse(&mut p)?;
    p.end()?;
    Ok(t)
}

struct TypeTextParser<'a> {
    depth: u32,
    toks: Vec<String>,
    pos: usize,
    span: pyjit_syntax::Span,
    text: &'a str,
    imports: &'a Imports,
}

impl<'a> TypeTextParser<'a> {
    fn new(text: &'a str, span: pyjit_syntax::Span, imports: &'a Imports) -> Self {
        let mut toks = Vec::new();
        let cs: Vec<char> = text.chars().collect();
        let mut i = 0;
        while i < cs.len() {
            let c = cs[i];
            if c.is_whitespace() {
                i += 1;
            } else if c == '-' && cs.get(i + 1) == Some(&'>') {
                toks.push("->".to_string());
                i += 2;
            } else if c.is_alphanumeric() || c == '_' || c == '.' {
                let start = i;
                while i < cs.len() && (cs[i].is_alphanumeric() || cs[i] == '_' || cs[i] == '.') {
                    i += 1;
                }
                toks.push(cs[start..i].iter().collect());
            } else {
                toks.push(c.to_string());
                i += 1;
            }
        }
        TypeTextParser {
            depth: 0,
            toks,
            pos: 0,
            span,
            text,
            imports,
        }
    }

    fn err(&self, what: &str) -> Diagnostic {
        Diagnostic::error(format!("malformed type comment: {what}"))
            .with_primary(self.span, format!("in `# type: {}`", self.text))
            .with_help("write `# type: (int, Tensor) -> Tensor` for a def, `# type: List[int]` for an assignment")
    }

    fn peek(&self) -> Option<&str> {
        self.toks.get(self.pos).map(|s| s.as_str())
    }

    fn eat(&mut self, t: &str) -> bool {
        if self.peek() == Some(t) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, t: &str) -> Result<(), Diagnostic> {
        if self.eat(t) {
            Ok(())
        } else {
            Err(self.err(&format!(
                "expected `{t}`, found {}",
                self.peek()
                    .map(|s| format!("`{s}`"))
                    .unwrap_or("the end".into())
            )))
        }
    }

    fn end(&self) -> Result<(), Diagnostic> {
        match self.peek() {
            None => Ok(()),
            Some(t) => Err(self.err(&format!("unexpected `{t}`"))),
        }
    }

    fn ty(&mut self) -> Result<Ty, Diagnostic> {
        // Comments are not bounded by the parser's nesting limits; real types nest a few levels.
        self.depth += 1;
        if self.depth > 64 {
            return Err(self.err("types nested too deeply"));
        }
        let r = self.ty_inner();
        self.depth -= 1;
        r
    }

    fn ty_inner(&mut self) -> Result<Ty, Diagnostic> {
        let Some(name) = self.peek().map(str::to_string) else {
            return Err(self.err("expected a type"));
        };
        if !name
            .chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_')
        {
            return Err(self.err(&format!("expected a type, found `{name}`")));
        }
        self.pos += 1;
        let resolved = self.imports.resolve_type_name(&name);
        let unknown_msg = format!("unknown type `{name}`");
        if self.eat("[") {
            let mut args = Vec::new();
            if self.eat("(") {
                self.expect(")")?;
            } else {
                loop {
                    args.push(self.ty()?);
                    if !self.eat(",") {
                        break;
                    }
                }
            }
            self.expect("]")?;
            return match resolved.as_deref() {
                Some("List") if args.len() == 1 => Ok(Ty::list(args.pop().unwrap_or(Ty::Int))),
                Some("Optional") if args.len() == 1 => {
                    Ok(Ty::optional(args.pop().unwrap_or(Ty::Int)))
                }
                Some("Tuple") => Ok(Ty::Tuple(args)),
                _ => Err(self.err(&unknown_msg)),
            };
        }
        match resolved.as_deref() {
            Some("Tensor") => Ok(Ty::Tensor),
            Some("int") => Ok(Ty::Int),
            Some("float") => Ok(Ty::Float),
            Some("bool") => Ok(Ty::Bool),
            Some("str") => Ok(Ty::Str),
            Some("None") => Ok(Ty::None),
            _ => Err(self.err(&unknown_msg)),
        }
    }
}

/// The label under a wrong number of type arguments: "1 type argument", "3 type arguments".
fn type_argument_count(n: usize) -> String {
    if n == 1 {
        "1 type argument".to_string()
    } else {
        format!("{n} type arguments")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pyjit_syntax::Span;

    fn imports() -> Imports {
        let mut i = Imports::default();
        i.bound.insert("torch".into(), "torch".into());
        i.bound.insert("np".into(), "numpy".into());
        i.bound.insert("Tensor".into(), "torch.Tensor".into());
        i.bound.insert("List".into(), "typing.List".into());
        i
    }

    #[test]
    fn function_type_comments() {
        let c = parse_fn_type_comment("(int, Tensor) -> Tensor", Span::DUMMY, &imports())
            .unwrap_or_else(|d| panic!("{}", d.message));
        assert_eq!(c.params, vec![Ty::Int, Ty::Tensor]);
        assert_eq!(c.ret, Ty::Tensor);
        let c = parse_fn_type_comment(
            "(List[Tuple[int, float]], Optional[torch.Tensor]) -> Tuple[()]",
            Span::DUMMY,
            &imports(),
        )
        .unwrap_or_else(|d| panic!("{}", d.message));
        assert_eq!(
            c.params,
            vec![
                Ty::list(Ty::Tuple(vec![Ty::Int, Ty::Float])),
                Ty::optional(Ty::Tensor)
            ]
        );
        assert_eq!(c.ret, Ty::Tuple(vec![]));
        let c = parse_fn_type_comment("() -> None", Span::DUMMY, &imports())
            .unwrap_or_else(|d| panic!("{}", d.message));
        assert!(c.params.is_empty());
        assert_eq!(c.ret, Ty::None);
    }

    #[test]
    fn deeply_nested_type_comment_is_an_error_not_an_overflow() {
        let text = format!("{}int{}", "List[".repeat(100_000), "]".repeat(100_000));
        assert!(parse_type_comment(&text, Span::DUMMY, &imports()).is_err());
    }

    #[test]
    fn malformed_type_comments_are_errors() {
        for bad in [
            "(int",
            "int -> int",
            "(int) ->",
            "(Tensr) -> int",
            "(int) -> int extra",
            "List[int",
        ] {
            assert!(
                parse_fn_type_comment(bad, Span::DUMMY, &imports()).is_err(),
                "accepted {bad:?}"
            );
        }
        assert!(parse_type_comment("List[int]", Span::DUMMY, &imports()).is_ok());
        assert!(parse_type_comment("List[int] x", Span::DUMMY, &imports()).is_err());
    }

    #[test]
    fn subtyping_and_display() {
        assert!(Ty::Int.is_subtype_of(&Ty::optional(Ty::Int)));
        assert!(Ty::None.is_subtype_of(&Ty::optional(Ty::Tensor)));
        assert!(!Ty::list(Ty::Int).is_subtype_of(&Ty::list(Ty::Float)));
        assert_eq!(Ty::optional(Ty::optional(Ty::Int)), Ty::optional(Ty::Int));
        assert_eq!(
            Ty::Tuple(vec![Ty::Tensor, Ty::list(Ty::Bool)]).to_string(),
            "Tuple[Tensor, List[bool]]"
        );
    }
}
