//! The raw logos lexer and the indentation layer on top of it.
//!
//! The raw lexer ([`RawTok`]) knows nothing about lines: it produces words, numbers, string
//! extents, operators, comments and physical newlines. [`Layout`] wraps it like RustPython's
//! lexer does: an indent stack, a bracket stack and a queue of pending tokens turn physical lines
//! into `NEWLINE`/`INDENT`/`DEDENT`, drop newlines inside brackets and blank or comment-only lines,
//! decode literals, and enforce the nesting limits that keep every later recursive walk of the
//! tree within a small, fixed stack.

use crate::ast::{Expr, FStringPart, FormattedValue};
use crate::diagnostic::Diagnostic;
use crate::span::Span;
use crate::token::{StrPiece, Tok, keyword};
use logos::Logos;
use std::collections::VecDeque;

/// Most brackets open at once (CPython allows 200 too).
pub const MAX_BRACKET_DEPTH: usize = 200;
/// Most indentation levels (CPython's limit is 100).
pub const MAX_INDENT_DEPTH: usize = 100;
/// Upper bound on the depth of one statement's expression tree, counted conservatively from its
/// operators (see `Nesting` in this module). Deeper trees could overflow the stack of recursive
/// walks in this and later layers (drop, dump, unparse, type checking) on a 2 MiB thread.
pub const MAX_EXPR_NESTING: u32 = 500;
/// Most f-strings nested inside f-string replacement fields.
const MAX_FSTRING_DEPTH: u32 = 8;

#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) enum RawError {
    #[default]
    InvalidChar,
    UnterminatedString,
    UnterminatedTriple,
}

/// Scans a string literal body after its prefix and opening quote, so that logos only has to
/// recognise the start (a regex cannot express "until the matching triple quote" without
/// backtracking).
fn lex_string(lex: &mut logos::Lexer<RawTok>) -> Result<(), RawError> {
    let slice = lex.slice().as_bytes();
    let q = slice[slice.len() - 1];
    let rest = lex.remainder().as_bytes();
    let triple = rest.len() >= 2 && rest[0] == q && rest[1] == q;
    let mut i = if triple { 2 } else { 0 };
    loop {
        let Some(&c) = rest.get(i) else {
            lex.bump(rest.len());
            return Err(if triple {
                RawError::UnterminatedTriple
            } else {
                RawError::UnterminatedString
            });
        };
        match c {
            b'\\' => {
                // The escaped character never ends the string; `\` + CRLF is one continuation.
                i += if rest.get(i + 1) == Some(&b'\r') && rest.get(i + 2) == Some(&b'\n') {
                    3
                } else {
                    2
                };
            }
            b'\n' | b'\r' if !triple => {
                lex.bump(i);
                return Err(RawError::UnterminatedString);
            }
            _ if c == q => {
                if !triple {
                    lex.bump(i + 1);
                    return Ok(());
                }
                if rest.get(i + 1) == Some(&q) && rest.get(i + 2) == Some(&q) {
                    lex.bump(i + 3);
                    return Ok(());
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
}

/// Physical tokens. Keywords are recognised from `Name` afterwards (fewer automaton states).
#[derive(Logos, Clone, Copy, Debug, PartialEq)]
#[logos(error = RawError)]
#[logos(skip r"[ \t\x0c]+")]
pub(crate) enum RawTok {
    #[regex(r"\r?\n|\r")]
    Newline,
    #[regex(r"\\(\r?\n|\r)")]
    Continuation,
    #[token("\\")]
    StrayBackslash,
    #[regex(r"#[^\r\n]*", allow_greedy = true)]
    Comment,
    #[regex(r"[A-Za-z_\u{80}-\u{10FFFF}][A-Za-z0-9_\u{80}-\u{10FFFF}]*")]
    Name,
    #[regex(r"[0-9](_?[0-9])*", priority = 10)]
    DecInt,
    #[regex(r"0[xX](_?[0-9a-fA-F])+", priority = 10)]
    HexInt,
    #[regex(r"0[oO](_?[0-7])+", priority = 10)]
    OctInt,
    #[regex(r"0[bB](_?[01])+", priority = 10)]
    BinInt,
    #[regex(
        r"([0-9](_?[0-9])*)?\.[0-9](_?[0-9])*([eE][+-]?[0-9](_?[0-9])*)?|[0-9](_?[0-9])*\.([eE][+-]?[0-9](_?[0-9])*)?|[0-9](_?[0-9])*[eE][+-]?[0-9](_?[0-9])*",
        priority = 10
    )]
    Float,
    #[regex(
        r"(([0-9](_?[0-9])*)?\.[0-9](_?[0-9])*([eE][+-]?[0-9](_?[0-9])*)?|[0-9](_?[0-9])*\.([eE][+-]?[0-9](_?[0-9])*)?|[0-9](_?[0-9])*([eE][+-]?[0-9](_?[0-9])*)?)[jJ]",
        priority = 10
    )]
    Imag,
    /// Anything that starts like a number but is not one (`0x`, `1__0`, `1abc`).
    #[regex(r"[0-9][0-9A-Za-z_]*", priority = 1)]
    BadNumber,
    #[regex(r#"([rRbBuUfF]|[rR][bBfF]|[bBfF][rR])?["']"#, lex_string)]
    Str,
    #[token("(")]
    LPar,
    #[token(")")]
    RPar,
    #[token("[")]
    LSqb,
    #[token("]")]
    RSqb,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token(":")]
    Colon,
    #[token(",")]
    Comma,
    #[token(";")]
    Semi,
    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("*")]
    Star,
    #[token("/")]
    Slash,
    #[token("|")]
    VBar,
    #[token("&")]
    Amper,
    #[token("<")]
    Less,
    #[token(">")]
    Greater,
    #[token("=")]
    Equal,
    #[token(".")]
    Dot,
    #[token("%")]
    Percent,
    #[token("==")]
    EqEqual,
    #[token("!=")]
    NotEqual,
    #[token("<=")]
    LessEqual,
    #[token(">=")]
    GreaterEqual,
    #[token("~")]
    Tilde,
    #[token("^")]
    Circumflex,
    #[token("<<")]
    LeftShift,
    #[token(">>")]
    RightShift,
    #[token("**")]
    DoubleStar,
    #[token("//")]
    DoubleSlash,
    #[token("@")]
    At,
    #[token("->")]
    Rarrow,
    #[token("...")]
    Ellipsis,
    #[token(":=")]
    ColonEqual,
    #[token("+=")]
    PlusEqual,
    #[token("-=")]
    MinusEqual,
    #[token("*=")]
    StarEqual,
    #[token("/=")]
    SlashEqual,
    #[token("%=")]
    PercentEqual,
    #[token("&=")]
    AmperEqual,
    #[token("|=")]
    VBarEqual,
    #[token("^=")]
    CircumflexEqual,
    #[token("<<=")]
    LeftShiftEqual,
    #[token(">>=")]
    RightShiftEqual,
    #[token("**=")]
    DoubleStarEqual,
    #[token("//=")]
    DoubleSlashEqual,
    #[token("@=")]
    AtEqual,
}

fn punct(raw: RawTok) -> Option<Tok> {
    use RawTok as R;
    Some(match raw {
        R::LPar => Tok::LPar,
        R::RPar => Tok::RPar,
        R::LSqb => Tok::LSqb,
        R::RSqb => Tok::RSqb,
        R::LBrace => Tok::LBrace,
        R::RBrace => Tok::RBrace,
        R::Colon => Tok::Colon,
        R::Comma => Tok::Comma,
        R::Semi => Tok::Semi,
        R::Plus => Tok::Plus,
        R::Minus => Tok::Minus,
        R::Star => Tok::Star,
        R::Slash => Tok::Slash,
        R::VBar => Tok::VBar,
        R::Amper => Tok::Amper,
        R::Less => Tok::Less,
        R::Greater => Tok::Greater,
        R::Equal => Tok::Equal,
        R::Dot => Tok::Dot,
        R::Percent => Tok::Percent,
        R::EqEqual => Tok::EqEqual,
        R::NotEqual => Tok::NotEqual,
        R::LessEqual => Tok::LessEqual,
        R::GreaterEqual => Tok::GreaterEqual,
        R::Tilde => Tok::Tilde,
        R::Circumflex => Tok::Circumflex,
        R::LeftShift => Tok::LeftShift,
        R::RightShift => Tok::RightShift,
        R::DoubleStar => Tok::DoubleStar,
        R::DoubleSlash => Tok::DoubleSlash,
        R::At => Tok::At,
        R::Rarrow => Tok::Rarrow,
        R::Ellipsis => Tok::Ellipsis,
        R::ColonEqual => Tok::ColonEqual,
        R::PlusEqual => Tok::PlusEqual,
        R::MinusEqual => Tok::MinusEqual,
        R::StarEqual => Tok::StarEqual,
        R::SlashEqual => Tok::SlashEqual,
        R::PercentEqual => Tok::PercentEqual,
        R::AmperEqual => Tok::AmperEqual,
        R::VBarEqual => Tok::VBarEqual,
        R::CircumflexEqual => Tok::CircumflexEqual,
        R::LeftShiftEqual => Tok::LeftShiftEqual,
        R::RightShiftEqual => Tok::RightShiftEqual,
        R::DoubleStarEqual => Tok::DoubleStarEqual,
        R::DoubleSlashEqual => Tok::DoubleSlashEqual,
        R::AtEqual => Tok::AtEqual,
        _ => return None,
    })
}

/// A `# type: ...` comment as found by the lexer; attached to the tree after parsing.
#[derive(Clone, Debug)]
pub struct RawTypeComment {
    pub text: String,
    pub span: Span,
}

/// One token with the innermost bracket open around it (for "unclosed `(`" messages).
#[derive(Clone, Debug)]
pub struct TokInfo {
    pub tok: Tok,
    pub span: Span,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// A whole file: statements, indentation.
    Module,
    /// One expression (an f-string field): newlines are insignificant, as inside brackets.
    Expr,
}

/// A conservative bound on expression-tree depth, tracked per bracket level: operators since the
/// last comma add one each, a closed group adds the deepest of its elements plus one. Siblings
/// separated by commas do not add up, so long flat lists (`[-1, -2, ...]`) stay cheap.
struct Nesting {
    /// Per open bracket level: (operators in the current element, deepest earlier element).
    levels: Vec<(u32, u32)>,
    total: u32,
    limit: u32,
}

impl Nesting {
    fn new(limit: u32) -> Nesting {
        Nesting {
            levels: vec![(0, 0)],
            total: 0,
            limit,
        }
    }
    fn add(&mut self, n: u32) -> bool {
        if let Some(top) = self.levels.last_mut() {
            top.0 += n;
        }
        self.total += n;
        self.total + self.levels.len() as u32 <= self.limit
    }
    fn open(&mut self) {
        self.levels.push((0, 0));
    }
    fn close(&mut self) -> bool {
        if self.levels.len() <= 1 {
            return true;
        }
        let (cur, max) = self.levels.pop().unwrap_or((0, 0));
        self.total -= cur;
        self.add(cur.max(max) + 1)
    }
    fn separator(&mut self) {
        if let Some(top) = self.levels.last_mut() {
            self.total -= top.0;
            top.1 = top.1.max(top.0);
            top.0 = 0;
        }
    }
    fn reset(&mut self) {
        self.levels.truncate(1);
        self.levels[0] = (0, 0);
        self.total = 0;
    }
}

/// The indentation layer: an iterator of tokens with `NEWLINE`/`INDENT`/`DEDENT`, ending after
/// the first error.
pub struct Layout<'a> {
    /// The whole file (spans are offsets into it).
    text: &'a str,
    base: usize,
    /// Offset just past the lexed range.
    end: usize,
    raw: logos::SpannedIter<'a, RawTok>,
    pending: VecDeque<TokInfo>,
    /// (column with tabs to multiples of 8, column with tabs as 1) per level, as CPython compares.
    indents: Vec<(u32, u32)>,
    brackets: Vec<(Tok, Span)>,
    at_line_start: bool,
    line_start: usize,
    mode: Mode,
    done: bool,
    nesting: Nesting,
    fstring_depth: u32,
    pub type_comments: Vec<RawTypeComment>,
    /// Set when input ended inside brackets: the innermost unclosed one.
    pub unclosed: Option<(Tok, Span)>,
}

impl<'a> Layout<'a> {
    /// Lexes `text[range]`, giving spans as offsets into the whole of `text`.
    pub fn new(text: &'a str, range: std::ops::Range<usize>, mode: Mode) -> Layout<'a> {
        Layout::with_limits(text, range, mode, MAX_EXPR_NESTING, 0)
    }

    pub(crate) fn with_limits(
        text: &'a str,
        range: std::ops::Range<usize>,
        mode: Mode,
        nesting_budget: u32,
        fstring_depth: u32,
    ) -> Layout<'a> {
        let base = range.start;
        let sub = text.get(range.clone()).unwrap_or("");
        Layout {
            text,
            base,
            end: base + sub.len(),
            raw: RawTok::lexer(sub).spanned(),
            pending: VecDeque::new(),
            indents: vec![(0, 0)],
            brackets: Vec::new(),
            at_line_start: mode == Mode::Module,
            line_start: base,
            mode,
            done: false,
            nesting: Nesting::new(nesting_budget),
            fstring_depth,
            type_comments: Vec::new(),
            unclosed: None,
        }
    }

    fn push(&mut self, tok: Tok, span: Span) {
        self.pending.push_back(TokInfo { tok, span });
    }

    fn end_of_input(&mut self) -> Result<(), Diagnostic> {
        let end = self.end;
        let eof = Span::new(end, end);
        if let Some((open, span)) = self.brackets.last().cloned() {
            self.unclosed = Some((open.clone(), span));
            return Err(unclosed_bracket(&open, span, eof));
        }
        if self.mode == Mode::Module {
            if !self.at_line_start {
                self.push(Tok::Newline, eof);
            }
            while self.indents.len() > 1 {
                self.indents.pop();
                self.push(Tok::Dedent, eof);
            }
        }
        Ok(())
    }

    /// Measures the indentation of the line that starts at `line_start` and queues
    /// `INDENT`/`DEDENT`s for it.
    fn indentation(&mut self, tok_start: usize) -> Result<(), Diagnostic> {
        let (mut col, mut alt) = (0u32, 0u32);
        for b in self.text.as_bytes()[self.line_start..tok_start].iter() {
            match b {
                b' ' => {
                    col += 1;
                    alt += 1;
                }
                b'\t' => {
                    col = (col / 8 + 1) * 8;
                    alt += 1;
                }
                b'\x0c' => {
                    col = 0;
                    alt = 0;
                }
                _ => break,
            }
        }
        let ws = Span::new(self.line_start, tok_start);
        let tabs_error = || {
            Diagnostic::error("inconsistent use of tabs and spaces in indentation")
                .with_primary(
                    ws,
                    "this indentation mixes tabs and spaces differently from the lines above",
                )
                .with_help("indent with spaces only (4 per level is the convention)")
        };
        let (top_col, top_alt) = *self.indents.last().unwrap_or(&(0, 0));
        if col == top_col {
            if alt != top_alt {
                return Err(tabs_error());
            }
        } else if col > top_col {
            if alt <= top_alt {
                return Err(tabs_error());
            }
            if self.indents.len() > MAX_INDENT_DEPTH {
                return Err(Diagnostic::error("too many levels of indentation")
                    .with_primary(ws, format!("more than {MAX_INDENT_DEPTH} nested blocks")));
            }
            self.indents.push((col, alt));
            self.push(Tok::Indent, ws);
        } else {
            while self.indents.last().is_some_and(|&(c, _)| col < c) {
                self.indents.pop();
                self.push(Tok::Dedent, Span::new(tok_start, tok_start));
            }
            let (top_col, top_alt) = *self.indents.last().unwrap_or(&(0, 0));
            if col != top_col {
                return Err(Diagnostic::error(
                    "unindent does not match any outer indentation level",
                )
                .with_primary(ws, "this line is indented less than the block it ends, but more than the block around it")
                .with_help("dedent to the same column as an enclosing statement"));
            }
            if alt != top_alt {
                return Err(tabs_error());
            }
        }
        Ok(())
    }

    fn step(&mut self) -> Result<(), Diagnostic> {
        let Some((res, range)) = self.raw.next() else {
            self.done = true;
            return self.end_of_input();
        };
        let span = Span::new(range.start + self.base, range.end + self.base);
        let raw = match res {
            Ok(raw) => raw,
            Err(e) => return Err(self.raw_error(e, span)),
        };
        match raw {
            RawTok::Newline => {
                if self.brackets.is_empty() && self.mode == Mode::Module {
                    if !self.at_line_start {
                        // Zero-width at the end of the line, so a caret on it stays on that line.
                        self.push(
                            Tok::Newline,
                            Span::new(span.start as usize, span.start as usize),
                        );
                        self.at_line_start = true;
                        self.nesting.reset();
                    }
                    self.line_start = span.end as usize;
                }
                return Ok(());
            }
            RawTok::Continuation => return Ok(()),
            RawTok::Comment => {
                self.comment(span);
                return Ok(());
            }
            RawTok::StrayBackslash => {
                return Err(Diagnostic::error(
                    "unexpected character after line continuation character",
                )
                .with_primary(span, "a `\\` outside a string must end its line"));
            }
            _ => {}
        }
        if self.at_line_start {
            self.indentation(span.start as usize)?;
            self.at_line_start = false;
        }
        let slice = &self.text[span.range()];
        let tok = match raw {
            RawTok::Name => name_token(slice, span)?,
            RawTok::DecInt => {
                let digits = slice.replace('_', "");
                if digits.len() > 1 && digits.starts_with('0') && digits.bytes().any(|b| b != b'0')
                {
                    let plain = digits.trim_start_matches('0');
                    let help = if plain.bytes().all(|b| b < b'8') {
                        format!("write `{plain}`, or `0o{plain}` for an octal number")
                    } else {
                        format!("write `{plain}`")
                    };
                    return Err(Diagnostic::error("invalid decimal literal")
                        .with_primary(span, "leading zeros are not allowed in decimal integers")
                        .with_help(help));
                }
                int_token(&digits, 10, span)?
            }
            RawTok::HexInt => int_token(&slice[2..].replace('_', ""), 16, span)?,
            RawTok::OctInt => int_token(&slice[2..].replace('_', ""), 8, span)?,
            RawTok::BinInt => int_token(&slice[2..].replace('_', ""), 2, span)?,
            RawTok::Float => Tok::Float(float_value(slice)),
            RawTok::Imag => Tok::Imag(float_value(&slice[..slice.len() - 1])),
            RawTok::BadNumber => return Err(bad_number(slice, span)),
            RawTok::Str => Tok::Str(self.string(span)?),
            other => match punct(other) {
                Some(t) => t,
                None => {
                    return Err(Diagnostic::error("unexpected token").with_primary(span, "here"));
                }
            },
        };
        self.brackets_and_nesting(&tok, span)?;
        self.push(tok, span);
        Ok(())
    }

    fn brackets_and_nesting(&mut self, tok: &Tok, span: Span) -> Result<(), Diagnostic> {
        let ok = match tok {
            Tok::LPar | Tok::LSqb | Tok::LBrace => {
                if self.brackets.len() >= MAX_BRACKET_DEPTH {
                    return Err(
                        Diagnostic::error("too deeply nested: too many open brackets")
                            .with_primary(
                                span,
                                format!(
                                    "this is bracket number {} open at once",
                                    MAX_BRACKET_DEPTH + 1
                                ),
                            )
                            .with_note(format!(
                                "at most {MAX_BRACKET_DEPTH} brackets may be open at once"
                            )),
                    );
                }
                self.brackets.push((tok.clone(), span));
                self.nesting.open();
                true
            }
            Tok::RPar | Tok::RSqb | Tok::RBrace => {
                let want = match tok {
                    Tok::RPar => Tok::LPar,
                    Tok::RSqb => Tok::LSqb,
                    _ => Tok::LBrace,
                };
                match self.brackets.pop() {
                    None => {
                        return Err(Diagnostic::error(format!("unexpected {tok}")).with_primary(
                            span,
                            format!("this {tok} has no matching opening bracket"),
                        ));
                    }
                    Some((open, ospan)) if open != want => {
                        return Err(Diagnostic::error(format!(
                            "closing {tok} does not match the opening {open}"
                        ))
                        .with_primary(span, format!("expected {} here", closer_of(&open)))
                        .with_secondary(ospan, format!("the {open} opened here")));
                    }
                    Some(_) => {}
                }
                self.nesting.close()
            }
            // Not `:`: it separates a lambda's parameters from a body nested inside it.
            Tok::Comma | Tok::Semi => {
                self.nesting.separator();
                true
            }
            Tok::Name(_) | Tok::Int(_) | Tok::Float(_) | Tok::Imag(_) | Tok::Str(_) => true,
            // Assignment and annotation punctuation never deepens an expression.
            Tok::Colon | Tok::Equal | Tok::Rarrow => true,
            Tok::True | Tok::False | Tok::None | Tok::Ellipsis => true,
            _ => self.nesting.add(1),
        };
        if ok {
            Ok(())
        } else {
            Err(
                Diagnostic::error("too deeply nested: this expression is too complex")
                    .with_primary(span, "the limit is reached here")
                    .with_note(format!(
                        "one statement may nest at most {MAX_EXPR_NESTING} operators and brackets"
                    ))
                    .with_help(
                        "split the expression into several statements with intermediate variables",
                    ),
            )
        }
    }

    fn comment(&mut self, span: Span) {
        let body = self.text[span.range()][1..].trim();
        let Some(rest) = body.strip_prefix("type:") else {
            return;
        };
        let rest = rest.trim();
        let ignore = rest
            .strip_prefix("ignore")
            .is_some_and(|after| after.is_empty() || after.starts_with([' ', '\t', '[', '#']));
        if !ignore && !rest.is_empty() {
            self.type_comments.push(RawTypeComment {
                text: rest.to_string(),
                span,
            });
        }
    }

    fn raw_error(&self, e: RawError, span: Span) -> Diagnostic {
        match e {
            RawError::UnterminatedString | RawError::UnterminatedTriple => {
                let text = &self.text[span.range()];
                let quote_at = text.find(['"', '\'']).unwrap_or(0);
                let qlen = if e == RawError::UnterminatedTriple {
                    3
                } else {
                    1
                };
                let open = Span::new(
                    span.start as usize,
                    (span.start as usize + quote_at + qlen).min(span.end as usize),
                );
                if e == RawError::UnterminatedTriple {
                    Diagnostic::error("unterminated triple-quoted string literal")
                        .with_primary(open, "this string is never closed")
                        .with_note("the file ends before the closing triple quote")
                } else {
                    Diagnostic::error("unterminated string literal")
                        .with_primary(open, "this string is not closed before the end of the line")
                        .with_help("close the string with a matching quote, or use triple quotes for a string that spans lines")
                }
            }
            RawError::InvalidChar => {
                let c = self.text[span.range()].chars().next().unwrap_or('?');
                let mut d = Diagnostic::error(format!(
                    "invalid character `{}` (U+{:04X})",
                    c.escape_debug(),
                    c as u32
                ))
                .with_primary(span, "this character cannot appear in Python code");
                if c == '!' {
                    d = d.with_help("Python spells logical negation `not`");
                } else if c == '$' || c == '?' || c == '`' {
                    d = d.with_note(
                        "this character has no meaning in Python outside strings and comments",
                    );
                }
                d
            }
        }
    }

    /// Decodes one string literal token (escapes, prefixes, f-string fields).
    fn string(&self, span: Span) -> Result<StrPiece, Diagnostic> {
        let text = &self.text[span.range()];
        let quote_at = text.find(['"', '\'']).unwrap_or(0);
        let prefix = text[..quote_at].to_ascii_lowercase();
        let q = text.as_bytes()[quote_at];
        let triple = text.len() >= quote_at + 6
            && text.as_bytes()[quote_at + 1] == q
            && text.as_bytes()[quote_at + 2] == q;
        let qlen = if triple { 3 } else { 1 };
        let start = span.start as usize + quote_at + qlen;
        let end = span.end as usize - qlen;
        let raw = prefix.contains('r');
        if prefix.contains('b') {
            decode(self.text, start, end, raw, true).map(|u| {
                StrPiece::Bytes(
                    u.into_iter()
                        .map(|u| match u {
                            Unit::Byte(b) => b,
                            Unit::Char(c) => c as u32 as u8,
                        })
                        .collect(),
                )
            })
        } else if prefix.contains('f') {
            if self.fstring_depth >= MAX_FSTRING_DEPTH {
                return Err(
                    Diagnostic::error("too deeply nested: f-strings nested too deeply")
                        .with_primary(
                            span,
                            format!("more than {MAX_FSTRING_DEPTH} f-strings inside each other"),
                        ),
                );
            }
            let budget = MAX_EXPR_NESTING
                .saturating_sub(self.nesting.total + self.nesting.levels.len() as u32);
            FStringParser {
                text: self.text,
                raw,
                budget,
                depth: self.fstring_depth + 1,
            }
            .parts(start, end, false)
            .map(|(parts, _)| StrPiece::FString(parts))
        } else {
            decode(self.text, start, end, raw, false).map(|u| StrPiece::Str(units_to_string(u)))
        }
    }
}

impl Iterator for Layout<'_> {
    type Item = Result<TokInfo, Diagnostic>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(t) = self.pending.pop_front() {
                return Some(Ok(t));
            }
            if self.done {
                return None;
            }
            if let Err(e) = self.step() {
                self.done = true;
                self.pending.clear();
                return Some(Err(e));
            }
        }
    }
}

pub(crate) fn closer_of(open: &Tok) -> Tok {
    match open {
        Tok::LPar => Tok::RPar,
        Tok::LSqb => Tok::RSqb,
        _ => Tok::RBrace,
    }
}

pub(crate) fn unclosed_bracket(open: &Tok, open_span: Span, at: Span) -> Diagnostic {
    Diagnostic::error(format!("unclosed {open}"))
        .with_primary(
            at,
            format!("expected {} before this point", closer_of(open)),
        )
        .with_secondary(open_span, format!("this {open} is never closed"))
}

fn name_token(slice: &str, span: Span) -> Result<Tok, Diagnostic> {
    if let Some(bad) = slice
        .chars()
        .find(|c| !c.is_ascii() && !c.is_alphanumeric())
    {
        let off = slice.find(bad).unwrap_or(0) + span.start as usize;
        return Err(Diagnostic::error(format!(
            "invalid character `{}` (U+{:04X})",
            bad.escape_debug(),
            bad as u32
        ))
        .with_primary(
            Span::new(off, off + bad.len_utf8()),
            "this character cannot appear in a name",
        ));
    }
    Ok(keyword(slice).unwrap_or_else(|| Tok::Name(slice.to_string())))
}

fn int_token(digits: &str, radix: u32, span: Span) -> Result<Tok, Diagnostic> {
    i128::from_str_radix(digits, radix)
        .map(Tok::Int)
        .map_err(|_| {
            Diagnostic::error("integer literal is too large")
                .with_primary(span, "this does not fit in 128 bits")
                .with_note(
                    "pyjit's integers are 64-bit; literals are checked against 128 bits here",
                )
        })
}

fn float_value(slice: &str) -> f64 {
    // The regex only admits valid float syntax; an overflow parses to infinity as in Python.
    slice
        .replace('_', "")
        .parse::<f64>()
        .unwrap_or(f64::INFINITY)
}

fn bad_number(slice: &str, span: Span) -> Diagnostic {
    let lower = slice.to_ascii_lowercase();
    let (kind, digits) = if lower.starts_with("0x") {
        ("hexadecimal", "hexadecimal digits (0-9, a-f)")
    } else if lower.starts_with("0o") {
        ("octal", "octal digits (0-7)")
    } else if lower.starts_with("0b") {
        ("binary", "binary digits (0 and 1)")
    } else {
        ("decimal", "digits")
    };
    let mut d = Diagnostic::error(format!("invalid {kind} literal"));
    if slice.contains("__") || slice.ends_with('_') {
        d = d
            .with_primary(span, "`_` may only appear alone between two digits")
            .with_help(format!("write `{}`", slice.replace('_', "")));
    } else if kind != "decimal" && slice.len() == 2 {
        d = d.with_primary(span, format!("expected {digits} after `{slice}`"));
    } else {
        d = d.with_primary(span, format!("a {kind} literal may only contain {digits}"));
        if kind == "decimal" && slice.bytes().any(|b| b.is_ascii_alphabetic()) {
            d = d.with_note("names cannot start with a digit");
        }
    }
    d
}

/// One decoded unit of a literal: a character, or a raw byte from a `\x` escape in bytes.
#[derive(Clone, Copy)]
enum Unit {
    Char(char),
    Byte(u8),
}

fn units_to_string(units: Vec<Unit>) -> String {
    units
        .into_iter()
        .map(|u| match u {
            Unit::Char(c) => c,
            Unit::Byte(b) => b as char,
        })
        .collect()
}

/// Processes escapes in `text[start..end]` (a literal's body).
fn decode(
    text: &str,
    start: usize,
    end: usize,
    raw: bool,
    bytes: bool,
) -> Result<Vec<Unit>, Diagnostic> {
    let body = &text[start..end];
    let mut out = Vec::with_capacity(body.len());
    let mut it = body.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        if bytes && !c.is_ascii() {
            let at = start + i;
            return Err(
                Diagnostic::error("bytes can only contain ASCII literal characters")
                    .with_primary(
                        Span::new(at, at + c.len_utf8()),
                        "this character is not ASCII",
                    )
                    .with_help("write it as a `\\x..` escape"),
            );
        }
        if c != '\\' || raw {
            if raw && c == '\\' {
                // In raw literals a backslash stays, and also protects the next character.
                out.push(Unit::Char('\\'));
                if let Some((_, n)) = it.next() {
                    out.push(Unit::Char(n));
                }
                continue;
            }
            // Normalise newlines inside triple-quoted strings as Python does.
            if c == '\r' {
                if it.peek().map(|p| p.1) == Some('\n') {
                    it.next();
                }
                out.push(Unit::Char('\n'));
            } else {
                out.push(Unit::Char(c));
            }
            continue;
        }
        let esc_start = start + i;
        let Some((_, e)) = it.next() else {
            out.push(Unit::Char('\\'));
            break;
        };
        let bad = |what: &str, len: usize| {
            Diagnostic::error(format!("invalid escape sequence: {what}")).with_primary(
                Span::new(esc_start, (esc_start + len).min(end)),
                "this escape",
            )
        };
        match e {
            '\n' => {}
            '\r' => {
                if it.peek().map(|p| p.1) == Some('\n') {
                    it.next();
                }
            }
            '\\' => out.push(Unit::Char('\\')),
            '\'' => out.push(Unit::Char('\'')),
            '"' => out.push(Unit::Char('"')),
            'a' => out.push(Unit::Char('\x07')),
            'b' => out.push(Unit::Char('\x08')),
            'f' => out.push(Unit::Char('\x0c')),
            'n' => out.push(Unit::Char('\n')),
            'r' => out.push(Unit::Char('\r')),
            't' => out.push(Unit::Char('\t')),
            'v' => out.push(Unit::Char('\x0b')),
            '0'..='7' => {
                let mut v = e.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match it.peek().and_then(|p| p.1.to_digit(8)) {
                        Some(d) => {
                            v = v * 8 + d;
                            it.next();
                        }
                        None => break,
                    }
                }
                if bytes {
                    out.push(Unit::Byte((v & 0xff) as u8));
                } else {
                    out.push(Unit::Char(char::from_u32(v).unwrap_or('\u{fffd}')));
                }
            }
            'x' | 'u' | 'U' if !(bytes && e != 'x') => {
                let n = match e {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                let mut v = 0u32;
                for k in 0..n {
                    match it.peek().and_then(|p| p.1.to_digit(16)) {
                        Some(d) => {
                            v = v.wrapping_mul(16).wrapping_add(d);
                            it.next();
                        }
                        None => {
                            return Err(bad(
                                &format!("`\\{e}` needs {n} hex digits, found {k}"),
                                2 + k,
                            ));
                        }
                    }
                }
                if bytes {
                    out.push(Unit::Byte(v as u8));
                } else {
                    match char::from_u32(v) {
                        Some(c) => out.push(Unit::Char(c)),
                        None => {
                            return Err(bad("not a valid Unicode code point", 2 + n));
                        }
                    }
                }
            }
            'N' if !bytes => {
                return Err(Diagnostic::error("named Unicode escapes are not supported")
                    .with_primary(
                        Span::new(esc_start, (esc_start + 2).min(end)),
                        "`\\N{...}` escape",
                    )
                    .with_help("write the character itself, or a `\\u` escape"));
            }
            other => {
                // Python keeps unknown escapes as written (with a warning).
                out.push(Unit::Char('\\'));
                out.push(Unit::Char(other));
            }
        }
    }
    Ok(out)
}

/// Splits an f-string body into literal text and replacement fields, parsing each field's
/// expression with the same grammar (spans stay absolute offsets into the file).
struct FStringParser<'a> {
    text: &'a str,
    raw: bool,
    budget: u32,
    depth: u32,
}

impl FStringParser<'_> {
    /// Parses parts from `start` until `end` or, inside a format spec, until the `}` that closes
    /// the field; returns the parts and where it stopped.
    fn parts(
        &self,
        start: usize,
        end: usize,
        in_spec: bool,
    ) -> Result<(Vec<FStringPart>, usize), Diagnostic> {
        let b = self.text.as_bytes();
        let mut parts = Vec::new();
        let mut lit = String::new();
        let mut seg = start;
        let mut i = start;
        let flush_seg = |lit: &mut String, from: usize, to: usize| -> Result<(), Diagnostic> {
            if to > from {
                let units = decode(self.text, from, to, self.raw || in_spec, false)?;
                lit.push_str(&units_to_string(units));
            }
            Ok(())
        };
        while i < end {
            match b[i] {
                b'\\' if !self.raw => i += 2,
                b'{' if b.get(i + 1) == Some(&b'{') && !in_spec => {
                    flush_seg(&mut lit, seg, i)?;
                    lit.push('{');
                    i += 2;
                    seg = i;
                }
                b'}' if b.get(i + 1) == Some(&b'}') && !in_spec => {
                    flush_seg(&mut lit, seg, i)?;
                    lit.push('}');
                    i += 2;
                    seg = i;
                }
                b'{' => {
                    flush_seg(&mut lit, seg, i)?;
                    if !lit.is_empty() {
                        parts.push(FStringPart::Literal(std::mem::take(&mut lit)));
                    }
                    let (part, next) = self.field(i, end)?;
                    parts.push(part);
                    i = next;
                    seg = i;
                }
                b'}' => {
                    if in_spec {
                        flush_seg(&mut lit, seg, i)?;
                        if !lit.is_empty() {
                            parts.push(FStringPart::Literal(lit));
                        }
                        return Ok((parts, i));
                    }
                    return Err(
                        Diagnostic::error("single `}` is not allowed in an f-string")
                            .with_primary(
                                Span::new(i, i + 1),
                                "this `}` closes no replacement field",
                            )
                            .with_help("write `}}` for a literal brace"),
                    );
                }
                _ => i += 1,
            }
        }
        let i = i.min(end);
        flush_seg(&mut lit, seg, i)?;
        if !lit.is_empty() {
            parts.push(FStringPart::Literal(lit));
        }
        Ok((parts, i))
    }

    /// Parses one `{expr!c:spec}` field starting at the `{` at `open`.
    fn field(&self, open: usize, end: usize) -> Result<(FStringPart, usize), Diagnostic> {
        let b = self.text.as_bytes();
        let unclosed = || {
            Diagnostic::error("unclosed `{` in f-string")
                .with_primary(
                    Span::new(open, open + 1),
                    "this replacement field is never closed",
                )
                .with_help("write `{{` for a literal brace")
        };
        let mut depth = 0i32;
        let mut i = open + 1;
        let mut quote: Option<u8> = None;
        let mut debug = false;
        let expr_end;
        loop {
            let Some(&c) = b.get(i).filter(|_| i < end) else {
                return Err(unclosed());
            };
            if let Some(q) = quote {
                if c == q {
                    quote = None;
                }
                i += 1;
                continue;
            }
            match c {
                b'\'' | b'"' => quote = Some(c),
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' => depth -= 1,
                b'}' if depth > 0 => depth -= 1,
                b'}' | b':' if depth == 0 => {
                    expr_end = i;
                    break;
                }
                b'!' if depth == 0 && b.get(i + 1) != Some(&b'=') => {
                    expr_end = i;
                    break;
                }
                b'=' if depth == 0
                    && b.get(i + 1) != Some(&b'=')
                    && !matches!(b[i - 1], b'=' | b'!' | b'<' | b'>') =>
                {
                    debug = true;
                    expr_end = i;
                    i += 1;
                    while i < end && b[i].is_ascii_whitespace() {
                        i += 1;
                    }
                    break;
                }
                _ => {}
            }
            i += 1;
        }
        if self.text[open + 1..expr_end].trim().is_empty() {
            return Err(Diagnostic::error("empty expression in f-string")
                .with_primary(
                    Span::new(open, (expr_end + 1).min(end)),
                    "expected an expression inside `{}`",
                )
                .with_help("write `{{` for a literal brace"));
        }
        let expr: Expr =
            crate::parser::parse_expr_range(self.text, open + 1..expr_end, self.budget, self.depth)
                .map_err(|mut ds| ds.remove(0))?;
        if !debug {
            i = expr_end;
        }
        let mut conversion = None;
        if b.get(i) == Some(&b'!') && i < end {
            let c = b.get(i + 1).copied().filter(|_| i + 1 < end);
            match c {
                Some(c @ (b'r' | b's' | b'a')) => {
                    conversion = Some(c as char);
                    i += 2;
                }
                _ => {
                    return Err(
                        Diagnostic::error("invalid conversion in f-string").with_primary(
                            Span::new(i, (i + 2).min(end)),
                            "expected `!r`, `!s` or `!a`",
                        ),
                    );
                }
            }
        }
        let mut format_spec = Vec::new();
        if b.get(i) == Some(&b':') && i < end {
            let (spec, stop) = self.parts(i + 1, end, true)?;
            format_spec = spec;
            i = stop;
        }
        if b.get(i) != Some(&b'}') || i >= end {
            if i < end {
                return Err(Diagnostic::error("expected `}` in f-string")
                    .with_primary(Span::new(i, i + 1), "the replacement field should end here")
                    .with_secondary(Span::new(open, open + 1), "field opened here"));
            }
            return Err(unclosed());
        }
        Ok((
            FStringPart::Expr(FormattedValue {
                expr: Box::new(expr),
                conversion,
                format_spec,
                debug,
            }),
            i + 1,
        ))
    }
}
