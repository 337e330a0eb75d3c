//! The parser of the IR text format: a hand-written lexer and recursive-descent parser.
//!
//! Value names in the text are only labels: `%x`, `%0`, `%acc` all work, and the printer renumbers
//! densely. Locations come from `# file:line:col` comments at the end of an op's first line.
//! Nesting is handled with an explicit stack of open regions rather than recursion, so deeply
//! nested input cannot overflow the stack.

use crate::entities::{FuncId, Op, Region, Value};
use crate::function::{Function, Module};
use crate::ops::{Const, OpKind, kind_from_name};
use crate::types::{TensorType, Type, dtype_from_text};
use pyjit_syntax::{SourceFile, Span};
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

/// A syntax error in IR text, at a 1-based line and column.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct ParseError {
    pub line: u32,
    pub col: u32,
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.col, self.message)
    }
}

/// Parses IR text. A `#` comment at the end of an op's first line (or of a `func` line) must be a
/// location; `#` lines on their own are ignored (test files use them for headers). Spans written as `# file:line:col` become spans into a synthetic source file
/// named `file` whose text is blank lines long enough to hold every location, so the module prints
/// back identically (`print(parse(print(m))) == print(m)`) but renders no source lines. Without
/// any location comment the module has no source.
pub fn parse_module(text: &str) -> Result<Module, ParseError> {
    parse(text, None)
}

/// Like [`parse_module`], but maps `line:col` locations into the given source file (which must
/// have the name the comments use), so diagnostics can show the real source lines.
pub fn parse_module_with_source(text: &str, source: Arc<SourceFile>) -> Result<Module, ParseError> {
    parse(text, Some(source))
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    /// `%name` (without the `%`).
    Value(String),
    /// `@name` or `@"name"` (without the `@`).
    Func(String),
    Ident(String),
    /// A number as written (`3`, `-2`, `2.5`, `1e-06`, `-inf`).
    Number(String),
    Str(String),
    Arrow,
    Punct(char),
    Eof,
}

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Value(n) => write!(f, "`%{n}`"),
            Tok::Func(n) => write!(f, "`@{n}`"),
            Tok::Ident(n) => write!(f, "`{n}`"),
            Tok::Number(n) => write!(f, "`{n}`"),
            Tok::Str(_) => write!(f, "a string"),
            Tok::Arrow => write!(f, "`->`"),
            Tok::Punct(c) => write!(f, "`{c}`"),
            Tok::Eof => write!(f, "the end of the text"),
        }
    }
}

struct Token {
    tok: Tok,
    line: u32,
    col: u32,
}

/// The most blank source text [`parse_module`] makes up for the locations of a module printed
/// without its source file (64 MiB).
const MAX_BLANK_SOURCE: u64 = 64 << 20;

fn perr<T>(line: u32, col: u32, message: impl Into<String>) -> Result<T, ParseError> {
    Err(ParseError {
        line,
        col,
        message: message.into(),
    })
}

/// The `#` comment of each line: its text (trimmed, without `#`) and the column of the `#`.
type Comments = HashMap<u32, (String, u32)>;

/// Splits the text into tokens and collects the `#` comment of each line.
fn lex(text: &str) -> Result<(Vec<Token>, Comments), ParseError> {
    let chars: Vec<char> = text.chars().collect();
    let mut toks = Vec::new();
    let mut comments = HashMap::new();
    let (mut i, mut line, mut col) = (0usize, 1u32, 1u32);
    let ident_start = |c: char| c.is_ascii_alphabetic() || c == '_';
    let ident_char = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '.';
    while i < chars.len() {
        let c = chars[i];
        let (tline, tcol) = (line, col);
        let start = i;
        if c == '\n' {
            i += 1;
            line += 1;
            col = 1;
            continue;
        }
        if c.is_whitespace() {
            i += 1;
            col += 1;
            continue;
        }
        let tok = match c {
            '#' => {
                let mut j = i + 1;
                while j < chars.len() && chars[j] != '\n' {
                    j += 1;
                }
                let body: String = chars[i + 1..j].iter().collect();
                comments.insert(tline, (body.trim().to_string(), tcol));
                col += (j - i) as u32;
                i = j;
                continue;
            }
            '%' | '@' => {
                let mut j = i + 1;
                let name = if c == '@' && chars.get(j) == Some(&'"') {
                    let (s, end) = lex_string(&chars, j, tline, tcol)?;
                    j = end;
                    s
                } else {
                    while j < chars.len() && (chars[j].is_ascii_alphanumeric() || chars[j] == '_') {
                        j += 1;
                    }
                    chars[i + 1..j].iter().collect()
                };
                if name.is_empty() {
                    return perr(tline, tcol, format!("expected a name after `{c}`"));
                }
                i = j;
                if c == '%' {
                    Tok::Value(name)
                } else {
                    Tok::Func(name)
                }
            }
            '"' => {
                let (s, end) = lex_string(&chars, i, tline, tcol)?;
                i = end;
                Tok::Str(s)
            }
            '-' if chars.get(i + 1) == Some(&'>') => {
                i += 2;
                Tok::Arrow
            }
            '-' | '0'..='9' => {
                let mut j = i + 1;
                if c == '-' && chars[j..].starts_with(&['i', 'n', 'f']) {
                    j += 3;
                } else {
                    while j < chars.len() {
                        let d = chars[j];
                        let sign_after_e =
                            (d == '-' || d == '+') && matches!(chars[j - 1], 'e' | 'E');
                        if d.is_ascii_digit() || d == '.' || d == 'e' || d == 'E' || sign_after_e {
                            j += 1;
                        } else {
                            break;
                        }
                    }
                }
                let s: String = chars[i..j].iter().collect();
                if s == "-" {
                    return perr(tline, tcol, "expected a number after `-`");
                }
                i = j;
                Tok::Number(s)
            }
            c if ident_start(c) => {
                let mut j = i + 1;
                while j < chars.len() && ident_char(chars[j]) {
                    j += 1;
                }
                let s: String = chars[i..j].iter().collect();
                i = j;
                Tok::Ident(s)
            }
            '(' | ')' | '[' | ']' | '{' | '}' | ',' | ':' | '=' | '?' => {
                i += 1;
                Tok::Punct(c)
            }
            other => return perr(tline, tcol, format!("unexpected character `{other}`")),
        };
        // Tokens never span lines (strings escape their newlines), so the column advances by the
        // token's width.
        col += (i - start) as u32;
        toks.push(Token {
            tok,
            line: tline,
            col: tcol,
        });
    }
    toks.push(Token {
        tok: Tok::Eof,
        line,
        col,
    });
    Ok((toks, comments))
}

/// Reads a string literal starting at the `"` at `start`; returns it and the index after it.
fn lex_string(
    chars: &[char],
    start: usize,
    line: u32,
    col: u32,
) -> Result<(String, usize), ParseError> {
    let mut s = String::new();
    let mut j = start + 1;
    loop {
        match chars.get(j) {
            None | Some('\n') => return perr(line, col, "unterminated string"),
            Some('"') => return Ok((s, j + 1)),
            Some('\\') => {
                let esc = chars.get(j + 1).copied();
                j += 2;
                match esc {
                    Some('n') => s.push('\n'),
                    Some('t') => s.push('\t'),
                    Some('r') => s.push('\r'),
                    Some('"') => s.push('"'),
                    Some('\\') => s.push('\\'),
                    Some('u') if chars.get(j) == Some(&'{') => {
                        let mut k = j + 1;
                        while k < chars.len() && chars[k] != '}' && chars[k] != '\n' {
                            k += 1;
                        }
                        let hex: String = chars[j + 1..k.min(chars.len())].iter().collect();
                        match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                            Some(c) if chars.get(k) == Some(&'}') => s.push(c),
                            _ => return perr(line, col, format!("bad escape `\\u{{{hex}}}`")),
                        }
                        j = k + 1;
                    }
                    _ => return perr(line, col, "unknown escape in string"),
                }
            }
            Some(&c) => {
                s.push(c);
                j += 1;
            }
        }
    }
}

/// What a parsed location is attached to.
enum LocTarget {
    Func(FuncId),
    Op(FuncId, Op),
}

struct Parser {
    toks: Vec<Token>,
    pos: usize,
    comments: Comments,
    /// (function, op, callee name, line, col) of each `call`, resolved once all functions exist.
    calls: Vec<(FuncId, Op, String, u32, u32)>,
    /// (target, line of its first token) for every function header and op.
    lines: Vec<(LocTarget, u32)>,
}

/// An open region: where ops go, and what closes it.
struct Frame {
    region: Region,
    /// The `if`/`loop` waiting for this region (none for the function body).
    pending: Option<PendingOp>,
}

/// An `if` or `loop` whose header has been read and whose regions are being parsed.
struct PendingOp {
    kind: OpKind,
    operands: Vec<Value>,
    results: Vec<(String, Type, u32, u32)>,
    regions: Vec<Region>,
    /// Region the op goes into once complete.
    parent: Region,
    line: u32,
}

impl Parser {
    fn peek(&self) -> &Tok {
        &self.toks[self.pos].tok
    }

    fn here(&self) -> (u32, u32) {
        let t = &self.toks[self.pos];
        (t.line, t.col)
    }

    fn next(&mut self) -> Tok {
        let t = self.toks[self.pos].tok.clone();
        if self.pos + 1 < self.toks.len() {
            self.pos += 1;
        }
        t
    }

    fn fail<T>(&self, message: impl Into<String>) -> Result<T, ParseError> {
        let (l, c) = self.here();
        perr(l, c, message)
    }

    fn expect_punct(&mut self, c: char) -> Result<(), ParseError> {
        if *self.peek() == Tok::Punct(c) {
            self.next();
            Ok(())
        } else {
            self.fail(format!("expected `{c}`, found {}", self.peek()))
        }
    }

    fn eat_punct(&mut self, c: char) -> bool {
        if *self.peek() == Tok::Punct(c) {
            self.next();
            true
        } else {
            false
        }
    }

    fn expect_keyword(&mut self, kw: &str) -> Result<(), ParseError> {
        if *self.peek() == Tok::Ident(kw.to_string()) {
            self.next();
            Ok(())
        } else {
            self.fail(format!("expected `{kw}`, found {}", self.peek()))
        }
    }

    fn module(&mut self, m: &mut Module) -> Result<(), ParseError> {
        while *self.peek() != Tok::Eof {
            self.function(m)?;
        }
        Ok(())
    }

    fn parse_type(&mut self) -> Result<Type, ParseError> {
        let (l, c) = self.here();
        let name = match self.next() {
            Tok::Ident(n) => n,
            Tok::Punct('?') => return perr(l, c, "`?` is only allowed inside `Tensor[...]`"),
            t => return perr(l, c, format!("expected a type, found {t}")),
        };
        Ok(match name.as_str() {
            "int" => Type::Int,
            "float" => Type::Float,
            "bool" => Type::Bool,
            "None" => Type::None,
            "str" => Type::Str,
            "dtype" => Type::DType,
            "Index" => Type::Index,
            "Tensor" => Type::Tensor(self.tensor_type()?),
            "List" | "Optional" => {
                self.expect_punct('[')?;
                let inner = self.parse_type()?;
                self.expect_punct(']')?;
                if name == "List" {
                    Type::list(inner)
                } else {
                    Type::optional(inner)
                }
            }
            "Dict" => {
                self.expect_punct('[')?;
                let k = self.parse_type()?;
                self.expect_punct(',')?;
                let v = self.parse_type()?;
                self.expect_punct(']')?;
                Type::dict(k, v)
            }
            "Tuple" => {
                self.expect_punct('[')?;
                let mut items = Vec::new();
                if *self.peek() == Tok::Punct('(') {
                    self.next();
                    self.expect_punct(')')?;
                } else {
                    loop {
                        items.push(self.parse_type()?);
                        if !self.eat_punct(',') {
                            break;
                        }
                    }
                }
                self.expect_punct(']')?;
                Type::Tuple(items)
            }
            other => return perr(l, c, format!("unknown type `{other}`")),
        })
    }

    /// The optional `[dtype, rank]` / `[dtype, [dims]]` after `Tensor`.
    fn tensor_type(&mut self) -> Result<TensorType, ParseError> {
        let mut t = TensorType::generic();
        if !self.eat_punct('[') {
            return Ok(t);
        }
        let (l, c) = self.here();
        match self.next() {
            Tok::Punct('?') => {}
            Tok::Ident(d) => match dtype_from_text(&d) {
                Some(d) => t.dtype = Some(d),
                None => return perr(l, c, format!("unknown dtype `{d}`")),
            },
            other => return perr(l, c, format!("expected a dtype or `?`, found {other}")),
        }
        if self.eat_punct(',') {
            let (l, c) = self.here();
            match self.next() {
                Tok::Number(n) => match n.parse::<u32>() {
                    Ok(r) => t.rank = Some(r),
                    Err(_) => return perr(l, c, format!("bad rank `{n}`")),
                },
                Tok::Punct('[') => {
                    let mut dims = Vec::new();
                    if !self.eat_punct(']') {
                        loop {
                            let (l, c) = self.here();
                            match self.next() {
                                Tok::Punct('?') => dims.push(None),
                                Tok::Number(n) => match n.parse::<u64>() {
                                    Ok(d) => dims.push(Some(d)),
                                    Err(_) => return perr(l, c, format!("bad dimension `{n}`")),
                                },
                                other => {
                                    return perr(
                                        l,
                                        c,
                                        format!("expected a dimension or `?`, found {other}"),
                                    );
                                }
                            }
                            if !self.eat_punct(',') {
                                break;
                            }
                        }
                        self.expect_punct(']')?;
                    }
                    t = TensorType::shaped(t.dtype, dims);
                }
                other => return perr(l, c, format!("expected a rank or `[dims]`, found {other}")),
            }
        }
        self.expect_punct(']')?;
        Ok(t)
    }

    /// `@name`.
    fn function_name(&mut self) -> Result<String, ParseError> {
        let (l, c) = self.here();
        match self.next() {
            Tok::Func(n) => Ok(n),
            t => perr(
                l,
                c,
                format!("expected a function name like `@f`, found {t}"),
            ),
        }
    }

    /// `(%name: Type, …)`, possibly empty: the parameters of a function or region.
    fn parameters(&mut self) -> Result<Vec<(String, Type, u32, u32)>, ParseError> {
        self.expect_punct('(')?;
        let params = if *self.peek() == Tok::Punct(')') {
            Vec::new()
        } else {
            self.typed_names()?
        };
        self.expect_punct(')')?;
        Ok(params)
    }

    /// `%name: Type` pairs separated by commas (at least one).
    fn typed_names(&mut self) -> Result<Vec<(String, Type, u32, u32)>, ParseError> {
        let mut out = Vec::new();
        loop {
            let (l, c) = self.here();
            let name = match self.next() {
                Tok::Value(n) => n,
                t => return perr(l, c, format!("expected a value name like `%0`, found {t}")),
            };
            self.expect_punct(':')?;
            let ty = self.parse_type()?;
            out.push((name, ty, l, c));
            if !self.eat_punct(',') {
                return Ok(out);
            }
        }
    }

    fn function(&mut self, m: &mut Module) -> Result<(), ParseError> {
        let (fline, _) = self.here();
        self.expect_keyword("func")?;
        let (l, c) = self.here();
        let name = self.function_name()?;
        if m.function_by_name(&name).is_some() {
            return perr(l, c, format!("function `@{name}` is defined twice"));
        }
        let params = self.parameters()?;
        if *self.peek() != Tok::Arrow {
            return self.fail(format!(
                "expected `->` and a return type, found {}",
                self.peek()
            ));
        }
        self.next();
        let ret = self.parse_type()?;
        self.expect_punct('{')?;
        let ps: Vec<(&str, Type)> = params
            .iter()
            .map(|(n, t, _, _)| (n.as_str(), t.clone()))
            .collect();
        let mut f = Function::new(name, &ps, ret, Span::DUMMY);
        let mut names: HashMap<String, Value> = HashMap::new();
        for (i, (n, _, l, c)) in params.iter().enumerate() {
            if names.insert(n.clone(), f.params()[i]).is_some() {
                return perr(*l, *c, format!("parameter `%{n}` is defined twice"));
            }
        }
        let id = m.funcs.next_key();
        self.lines.push((LocTarget::Func(id), fline));
        self.body(&mut f, id, &mut names)?;
        m.push_function(f);
        Ok(())
    }

    fn lookup(
        &self,
        names: &HashMap<String, Value>,
        n: &str,
        l: u32,
        c: u32,
    ) -> Result<Value, ParseError> {
        match names.get(n) {
            Some(&v) => Ok(v),
            None => perr(l, c, format!("value `%{n}` is used before it is defined")),
        }
    }

    fn operand_list(
        &mut self,
        names: &HashMap<String, Value>,
        close: char,
    ) -> Result<Vec<Value>, ParseError> {
        let mut out = Vec::new();
        if self.eat_punct(close) {
            return Ok(out);
        }
        loop {
            out.push(self.operand(names)?);
            if !self.eat_punct(',') {
                break;
            }
        }
        self.expect_punct(close)?;
        Ok(out)
    }

    fn operand(&mut self, names: &HashMap<String, Value>) -> Result<Value, ParseError> {
        let (l, c) = self.here();
        match self.next() {
            Tok::Value(n) => self.lookup(names, &n, l, c),
            t => perr(l, c, format!("expected a value like `%0`, found {t}")),
        }
    }

    fn define(
        names: &mut HashMap<String, Value>,
        vals: &[Value],
        defs: &[(String, Type, u32, u32)],
    ) -> Result<(), ParseError> {
        for (v, (n, _, l, c)) in vals.iter().zip(defs) {
            if names.insert(n.clone(), *v).is_some() {
                return perr(*l, *c, format!("value `%{n}` is defined twice"));
            }
        }
        Ok(())
    }

    /// Parses the ops of a function body up to and including its closing `}`.
    fn body(
        &mut self,
        f: &mut Function,
        fid: FuncId,
        names: &mut HashMap<String, Value>,
    ) -> Result<(), ParseError> {
        let mut stack = vec![Frame {
            region: f.body,
            pending: None,
        }];
        loop {
            let (line, _) = self.here();
            if self.eat_punct('}') {
                let frame = stack.pop().expect("the body frame is popped last");
                let Some(mut p) = frame.pending else {
                    return Ok(());
                };
                p.regions.push(frame.region);
                if p.kind == OpKind::If && p.regions.len() == 1 {
                    self.expect_keyword("else")?;
                    self.expect_punct('{')?;
                    let r = f.new_region(&[]);
                    stack.push(Frame {
                        region: r,
                        pending: Some(p),
                    });
                    continue;
                }
                let types: Vec<Type> = p.results.iter().map(|r| r.1.clone()).collect();
                let op = f.create_op(p.kind, &p.operands, &types, &p.regions, Span::DUMMY);
                f.append_op(p.parent, op);
                let results = f.results(op).to_vec();
                Self::define(names, &results, &p.results)?;
                self.lines.push((LocTarget::Op(fid, op), p.line));
                continue;
            }
            if *self.peek() == Tok::Eof {
                return self.fail("expected `}` before the end of the text");
            }
            let region = stack.last().expect("a frame is open").region;
            // Results.
            let results = if matches!(self.peek(), Tok::Value(_)) {
                let r = self.typed_names()?;
                self.expect_punct('=')?;
                r
            } else {
                Vec::new()
            };
            let (kl, kc) = self.here();
            let kw = match self.next() {
                Tok::Ident(k) => k,
                t => return perr(kl, kc, format!("expected an op name, found {t}")),
            };
            match kw.as_str() {
                "if" => {
                    let cond = self.operand(names)?;
                    self.expect_punct('{')?;
                    let r = f.new_region(&[]);
                    stack.push(Frame {
                        region: r,
                        pending: Some(PendingOp {
                            kind: OpKind::If,
                            operands: vec![cond],
                            results,
                            regions: Vec::new(),
                            parent: region,
                            line,
                        }),
                    });
                    continue;
                }
                "loop" | "fused" => {
                    self.expect_punct('(')?;
                    let operands = self.operand_list(names, ')')?;
                    self.expect_keyword("body")?;
                    let params = self.parameters()?;
                    self.expect_punct('{')?;
                    let types: Vec<Type> = params.iter().map(|p| p.1.clone()).collect();
                    let r = f.new_region(&types);
                    let pvals = f.region_params(r).to_vec();
                    Self::define(names, &pvals, &params)?;
                    stack.push(Frame {
                        region: r,
                        pending: Some(PendingOp {
                            kind: if kw == "loop" {
                                OpKind::Loop
                            } else {
                                OpKind::Fused
                            },
                            operands,
                            results,
                            regions: Vec::new(),
                            parent: region,
                            line,
                        }),
                    });
                    continue;
                }
                _ => {}
            }
            let (kind, operands) = match kw.as_str() {
                "const" => (OpKind::Const(self.literal()?), Vec::new()),
                "yield" | "return" => {
                    // Both take a bare operand list; the verifier checks `return`'s arity.
                    let mut ops = Vec::new();
                    if matches!(self.peek(), Tok::Value(_)) {
                        loop {
                            ops.push(self.operand(names)?);
                            if !self.eat_punct(',') {
                                break;
                            }
                        }
                    }
                    let kind = if kw == "yield" {
                        OpKind::Yield
                    } else {
                        OpKind::Return
                    };
                    (kind, ops)
                }
                "call" => {
                    let (l, c) = self.here();
                    let callee = self.function_name()?;
                    self.expect_punct('(')?;
                    let args = self.operand_list(names, ')')?;
                    let types: Vec<Type> = results.iter().map(|r| r.1.clone()).collect();
                    let op = f.create_op(
                        OpKind::Call(FuncId::from_u32(0)),
                        &args,
                        &types,
                        &[],
                        Span::DUMMY,
                    );
                    f.append_op(region, op);
                    let vals = f.results(op).to_vec();
                    Self::define(names, &vals, &results)?;
                    self.calls.push((fid, op, callee, l, c));
                    self.lines.push((LocTarget::Op(fid, op), line));
                    continue;
                }
                name => {
                    let Some(mut kind) = kind_from_name(name) else {
                        let hint = if name.starts_with("tensor.") {
                            " (not in the runtime's op-schema table)"
                        } else {
                            ""
                        };
                        return perr(kl, kc, format!("unknown op `{name}`{hint}"));
                    };
                    if matches!(
                        kind,
                        OpKind::If
                            | OpKind::Loop
                            | OpKind::Fused
                            | OpKind::Const(_)
                            | OpKind::Call(_)
                    ) {
                        return perr(kl, kc, format!("`{name}` is written with its own syntax"));
                    }
                    self.attrs(&mut kind, name)?;
                    self.expect_punct('(')?;
                    let ops = self.operand_list(names, ')')?;
                    (kind, ops)
                }
            };
            let types: Vec<Type> = results.iter().map(|r| r.1.clone()).collect();
            let op = f.create_op(kind, &operands, &types, &[], Span::DUMMY);
            f.append_op(region, op);
            let vals = f.results(op).to_vec();
            Self::define(names, &vals, &results)?;
            self.lines.push((LocTarget::Op(fid, op), line));
        }
    }

    /// The `[...]` attributes of kinds that have them.
    fn attrs(&mut self, kind: &mut OpKind, name: &str) -> Result<(), ParseError> {
        let takes = matches!(
            kind,
            OpKind::TupleGet(_)
                | OpKind::StrOf(_)
                | OpKind::Raise(_)
                | OpKind::Check(_)
                | OpKind::Guard { .. }
        );
        if *self.peek() != Tok::Punct('[') {
            // `str.of` without a spec means `str(v)`; the others need their attributes.
            if takes && !matches!(kind, OpKind::StrOf(_)) {
                return self.fail(format!("`{name}` needs `[...]` attributes"));
            }
            return Ok(());
        }
        if !takes {
            return self.fail(format!("`{name}` takes no `[...]` attributes"));
        }
        self.next();
        let (l, c) = self.here();
        match kind {
            OpKind::TupleGet(i) => match self.next() {
                Tok::Number(n) => match n.parse::<u32>() {
                    Ok(v) => *i = v,
                    Err(_) => return perr(l, c, format!("bad tuple index `{n}`")),
                },
                t => return perr(l, c, format!("expected a tuple index, found {t}")),
            },
            OpKind::StrOf(spec) => match self.next() {
                Tok::Str(s) => *spec = s,
                t => return perr(l, c, format!("expected a format spec string, found {t}")),
            },
            OpKind::Raise(class) | OpKind::Check(class) => match self.next() {
                Tok::Ident(s) | Tok::Str(s) => *class = s,
                t => return perr(l, c, format!("expected an exception class name, found {t}")),
            },
            OpKind::Guard { expected, message } => {
                *expected = self.literal()?;
                self.expect_punct(',')?;
                let (l, c) = self.here();
                match self.next() {
                    Tok::Str(s) => *message = s,
                    t => return perr(l, c, format!("expected a guard message string, found {t}")),
                }
            }
            _ => {}
        }
        self.expect_punct(']')
    }

    /// A constant literal: its form decides its type.
    fn literal(&mut self) -> Result<Const, ParseError> {
        let (l, c) = self.here();
        match self.next() {
            Tok::Number(n) => {
                let is_float = n.contains(['.', 'e', 'E']) || n.ends_with("inf");
                if is_float {
                    match n.parse::<f64>() {
                        Ok(v) => Ok(Const::Float(v)),
                        Err(_) => perr(l, c, format!("bad float `{n}`")),
                    }
                } else {
                    match n.parse::<i64>() {
                        Ok(v) => Ok(Const::Int(v)),
                        Err(_) => perr(l, c, format!("bad int `{n}` (ints are 64-bit)")),
                    }
                }
            }
            Tok::Ident(id) => match id.as_str() {
                "true" => Ok(Const::Bool(true)),
                "false" => Ok(Const::Bool(false)),
                "none" => Ok(Const::None),
                "inf" => Ok(Const::Float(f64::INFINITY)),
                "NaN" => Ok(Const::Float(f64::NAN)),
                d => match dtype_from_text(d) {
                    Some(d) => Ok(Const::DType(d)),
                    None => perr(l, c, format!("expected a constant, found `{d}`")),
                },
            },
            Tok::Str(s) => Ok(Const::Str(s)),
            t => perr(l, c, format!("expected a constant, found {t}")),
        }
    }
}

fn parse(text: &str, source: Option<Arc<SourceFile>>) -> Result<Module, ParseError> {
    let (toks, comments) = lex(text)?;
    let mut p = Parser {
        toks,
        pos: 0,
        comments,
        calls: Vec::new(),
        lines: Vec::new(),
    };
    let mut m = Module::new();
    p.module(&mut m)?;
    for (fid, op, name, l, c) in std::mem::take(&mut p.calls) {
        match m.function_by_name(&name) {
            Some(callee) => m.funcs[fid].ops[op].kind = OpKind::Call(callee),
            None => return perr(l, c, format!("call of unknown function `@{name}`")),
        }
    }
    // Locations.
    let mut locs: Vec<(LocTarget, u32, u32)> = Vec::new();
    // The IR line and column of the location comment that asks for the most blank text when
    // the module comes without its source file (for the error below).
    let mut widest: Option<(u64, u32, u32)> = None;
    let mut file: Option<String> = None;
    for (target, line) in std::mem::take(&mut p.lines) {
        let Some((comment, ccol)) = p.comments.get(&line) else {
            continue;
        };
        let mut parts = comment.rsplitn(3, ':');
        let (Some(c), Some(l), Some(name)) = (parts.next(), parts.next(), parts.next()) else {
            return perr(
                line,
                *ccol,
                format!("expected a location `# file:line:col`, found `# {comment}`"),
            );
        };
        let (Ok(l), Ok(c)) = (l.trim().parse::<u32>(), c.trim().parse::<u32>()) else {
            return perr(
                line,
                *ccol,
                format!("expected a location `# file:line:col`, found `# {comment}`"),
            );
        };
        if l == 0 || c == 0 {
            return perr(line, *ccol, "locations are 1-based");
        }
        match &file {
            None => file = Some(name.to_string()),
            Some(f) if f != name => {
                return perr(
                    line,
                    *ccol,
                    format!("a module has one source file; found `{f}` and `{name}`"),
                );
            }
            _ => {}
        }
        let need = u64::from(l) + u64::from(c);
        if widest.is_none_or(|(n, _, _)| need > n) {
            widest = Some((need, line, *ccol));
        }
        locs.push((target, l, c));
    }
    let Some(file) = file else {
        m.source = source;
        return Ok(m);
    };
    let source = match source {
        Some(s) => {
            if s.name != file {
                return perr(
                    1,
                    1,
                    format!(
                        "locations name `{file}` but the source file is `{}`",
                        s.name
                    ),
                );
            }
            s
        }
        None => {
            // Blank lines long enough for every location: line L column C is offset
            // start(L) + C - 1.
            // Lines without a location stay empty, so the text is one newline per line plus the
            // widest column of each line that has one. It is refused (rather than allocated)
            // past MAX_BLANK_SOURCE bytes: no real source file is that long.
            let mut widths: std::collections::BTreeMap<u32, u32> = Default::default();
            for (_, l, c) in &locs {
                let w = widths.entry(*l).or_insert(0);
                *w = (*w).max(*c - 1);
            }
            let max_line = widths.keys().next_back().copied().unwrap_or(1);
            let size = u64::from(max_line) + widths.values().map(|w| u64::from(*w)).sum::<u64>();
            if size > MAX_BLANK_SOURCE {
                let (_, line, col) = widest.unwrap_or((0, 1, 1));
                return perr(
                    line,
                    col,
                    format!(
                        "the locations of a module parsed without its source file need {size} \
                         bytes of blank source text (at most {MAX_BLANK_SOURCE}); check this \
                         location's line and column, or parse with the source file \
                         (parse_module_with_source)"
                    ),
                );
            }
            let mut text = String::with_capacity(size as usize);
            for line in 1..=max_line {
                if line > 1 {
                    text.push('\n');
                }
                if let Some(w) = widths.get(&line) {
                    text.extend(std::iter::repeat_n(' ', *w as usize));
                }
            }
            Arc::new(SourceFile::new(file, text))
        }
    };
    for (target, l, c) in locs {
        // One line index for all locations (scanning the text per location was quadratic).
        let Some(off) = source.offset_of(l, c) else {
            return perr(
                1,
                1,
                format!(
                    "location {}:{l}:{c} is outside the source file",
                    source.name
                ),
            );
        };
        let span = Span::new(off as usize, off as usize);
        match target {
            LocTarget::Func(f) => m.funcs[f].span = span,
            LocTarget::Op(f, op) => m.funcs[f].ops[op].span = span,
        }
    }
    m.source = Some(source);
    Ok(m)
}
