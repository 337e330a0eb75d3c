//! Drives the generated parser and turns its errors into diagnostics a Python user can read.

use crate::actions::Top;
use crate::ast::*;
use crate::diagnostic::Diagnostic;
use crate::lexer::{Layout, Mode, RawTypeComment, TokInfo, unclosed_bracket};
use crate::span::Span;
use crate::token::Tok;
use lalrpop_util::ParseError;

lalrpop_util::lalrpop_mod!(
    #[allow(
        clippy::all,
        clippy::pedantic,
        unused_parens,
        unused_imports,
        dead_code
    )]
    grammar
);

/// A lexed input: every token up to the first lexical error (if any), for error messages.
struct Lexed {
    toks: Vec<TokInfo>,
    unclosed: Option<(Tok, Span)>,
    /// Offset just past the input.
    end: usize,
}

fn lex(text: &str, range: std::ops::Range<usize>, mode: Mode, budget: u32, fdepth: u32) -> Lexed {
    let end = range.end;
    let mut layout = Layout::with_limits(text, range, mode, budget, fdepth);
    // The layout ends after its first error; the tokens before it are the context.
    let toks: Vec<TokInfo> = layout.by_ref().map_while(Result::ok).collect();
    Lexed {
        toks,
        unclosed: layout.unclosed.take(),
        end,
    }
}

/// Parses `text[range]` streaming tokens from the indentation layer straight into the parser.
/// Only on an error is the input lexed again, in full, to give the message its context (the
/// previous token, the enclosing statement, an unclosed bracket); errors are rare, so the common
/// path never stores or clones a token.
fn run(
    text: &str,
    range: std::ops::Range<usize>,
    mode: Mode,
    budget: u32,
    fdepth: u32,
) -> Result<(Top, Vec<RawTypeComment>), Diagnostic> {
    let mut layout = Layout::with_limits(text, range.clone(), mode, budget, fdepth);
    let start = match mode {
        Mode::Module => Tok::StartModule,
        Mode::Expr => Tok::StartExpr,
    };
    let first = range.start;
    let input = std::iter::once(Ok((first, start, first))).chain(
        (&mut layout).map(|r| r.map(|t| (t.span.start as usize, t.tok, t.span.end as usize))),
    );
    match grammar::TopParser::new().parse(input) {
        Ok(top) => Ok((top, std::mem::take(&mut layout.type_comments))),
        Err(ParseError::User { error }) => Err(error),
        Err(e) => {
            let lexed = lex(text, range, mode, budget, fdepth);
            Err(syntax_error(&lexed, e, text))
        }
    }
}

/// Parses a whole file.
pub fn parse_module(file: &crate::SourceFile) -> Result<Module, Vec<Diagnostic>> {
    let text = file.text.as_str();
    // Editors on Windows may start a file with a byte-order mark; Python ignores it.
    let start = if text.starts_with('\u{feff}') { 3 } else { 0 };
    match run(
        text,
        start..text.len(),
        Mode::Module,
        crate::lexer::MAX_EXPR_NESTING,
        0,
    ) {
        Ok((Top::Module(mut body), comments)) => {
            attach_type_comments(&mut body, &comments, text);
            Ok(Module {
                body,
                span: Span::new(0, text.len()),
            })
        }
        Ok((Top::Expr(_), _)) => Err(vec![
            Diagnostic::error("internal: module entry produced an expression")
                .with_primary(Span::new(0, 0), "here"),
        ]),
        Err(d) => Err(vec![d]),
    }
}

/// Parses `text[range]` as one expression (a tuple if it has top-level commas); newlines inside
/// are insignificant. Spans are offsets into `text`.
pub(crate) fn parse_expr_range(
    text: &str,
    range: std::ops::Range<usize>,
    budget: u32,
    fdepth: u32,
) -> Result<Expr, Vec<Diagnostic>> {
    match run(text, range, Mode::Expr, budget, fdepth) {
        Ok((Top::Expr(e), _)) => Ok(e),
        Ok((Top::Module(_), _)) => Err(vec![
            Diagnostic::error("internal: expression entry produced a module")
                .with_primary(Span::new(0, 0), "here"),
        ]),
        Err(d) => Err(vec![d]),
    }
}

// ---- error messages ------------------------------------------------------------------------

/// Which compound statement a line starting with `tok` begins, in words.
fn header_name(tok: &Tok) -> Option<&'static str> {
    Some(match tok {
        Tok::If => "`if` statement",
        Tok::Elif => "`elif` clause",
        Tok::Else => "`else` clause",
        Tok::While => "`while` statement",
        Tok::For => "`for` statement",
        Tok::Def => "function definition",
        Tok::Class => "class definition",
        Tok::Try => "`try` statement",
        Tok::Except => "`except` clause",
        Tok::Finally => "`finally` clause",
        Tok::With => "`with` statement",
        _ => return None,
    })
}

/// What the `:` ends, for "expected `:` after ...".
fn colon_context(tok: &Tok) -> Option<&'static str> {
    Some(match tok {
        Tok::If => "the `if` condition",
        Tok::Elif => "the `elif` condition",
        Tok::Else => "`else`",
        Tok::While => "the `while` condition",
        Tok::For => "the `for` loop header",
        Tok::Def => "the function signature",
        Tok::Class => "the class header",
        Tok::Try => "`try`",
        Tok::Except => "the `except` clause",
        Tok::Finally => "`finally`",
        Tok::With => "the `with` items",
        Tok::Lambda => "the lambda parameters",
        _ => return None,
    })
}

/// Index of the first token of the logical line containing token `i`.
fn line_start(toks: &[TokInfo], i: usize) -> usize {
    let mut j = i.min(toks.len());
    while j > 0 && !matches!(toks[j - 1].tok, Tok::Newline | Tok::Indent | Tok::Dedent) {
        j -= 1;
    }
    // Skip decorators' `@` lines: they end in NEWLINE, so j is already past them.
    j
}

fn expected_has(expected: &[String], t: &str) -> bool {
    let quoted = format!("\"{t}\"");
    expected.iter().any(|e| e == &quoted || e == t)
}

fn syntax_error(lexed: &Lexed, err: ParseError<usize, Tok, Diagnostic>, text: &str) -> Diagnostic {
    let toks = &lexed.toks;
    let (idx, expected) = match err {
        ParseError::User { error } => return error,
        ParseError::InvalidToken { location } => {
            return Diagnostic::error("invalid token")
                .with_primary(Span::new(location, location), "here");
        }
        ParseError::UnrecognizedEof { expected, .. } => (toks.len(), expected),
        ParseError::ExtraToken { token } => {
            let i = toks
                .iter()
                .position(|t| t.span.start as usize == token.0 && t.tok == token.1)
                .unwrap_or(toks.len());
            (i, Vec::new())
        }
        ParseError::UnrecognizedToken { token, expected } => {
            let i = toks
                .iter()
                .position(|t| t.span.start as usize == token.0 && t.tok == token.1)
                .unwrap_or(toks.len());
            (i, expected)
        }
    };
    let eof = Span::new(lexed.end, lexed.end);
    let (tok, span) = match toks.get(idx) {
        Some(t) => (t.tok.clone(), t.span),
        None => (Tok::Newline, eof),
    };
    let at_eof = idx >= toks.len();

    // An error inside a bracket that is never closed is best explained by the bracket.
    if let Some((open, ospan)) = &lexed.unclosed
        && span.start >= ospan.end
    {
        return unclosed_bracket(open, *ospan, span);
    }

    let prev = idx.checked_sub(1).and_then(|p| toks.get(p));
    let ls = line_start(toks, idx);
    let head = toks.get(ls).map(|t| &t.tok);
    let is_line_start = ls == idx;

    if tok == Tok::Indent {
        return Diagnostic::error("unexpected indent")
            .with_primary(span, "this line is indented more than the line before it")
            .with_help("indent only the body of a `def`, `if`, `for`, `while`, ... after its `:`");
    }
    if expected_has(&expected, "INDENT") {
        // `header:` NEWLINE, then no indented block.
        let hdr = toks[..idx.min(toks.len())]
            .iter()
            .rposition(|t| t.tok == Tok::Newline)
            .map(|nl| line_start(toks, nl))
            .and_then(|s| toks.get(s));
        let (what, line) = match hdr {
            Some(h) => (
                header_name(&h.tok).unwrap_or("this statement"),
                line_of(text, h.span.start),
            ),
            None => ("this statement", 1),
        };
        let mut d = Diagnostic::error(format!(
            "expected an indented block after {what} on line {line}"
        ));
        d = if at_eof {
            d.with_primary(eof, "the file ends here")
        } else {
            d.with_primary(span, "this should be indented")
        };
        if let Some(h) = hdr {
            d = d.with_secondary(h.span, "the block belongs to this");
        }
        return d.with_help("write an indented body; use `pass` for an empty one");
    }
    if is_line_start && matches!(tok, Tok::Else | Tok::Elif) {
        let kw = tok.spelling().unwrap_or("else");
        return Diagnostic::error(format!("`{kw}` without a matching `if`"))
            .with_primary(span, format!("this `{kw}` follows no `if` block"))
            .with_help(format!(
                "line `{kw}` up with its `if` (same indentation), with nothing else between them"
            ));
    }
    if is_line_start && matches!(tok, Tok::Except | Tok::Finally) {
        let kw = tok.spelling().unwrap_or("except");
        return Diagnostic::error(format!("`{kw}` without a matching `try`"))
            .with_primary(span, format!("this `{kw}` follows no `try` block"));
    }
    if tok == Tok::Dedent && !at_eof {
        return Diagnostic::error("unexpected end of the indented block").with_primary(
            span,
            "the block ends here, but the statement above is incomplete",
        );
    }

    let prev_desc = prev.map(|p| describe_after(&p.tok)).unwrap_or_default();
    let found = if at_eof {
        "end of file".to_string()
    } else {
        tok.to_string()
    };
    let expects_name = expected_has(&expected, "NAME");
    let expects_expr = expected_has(&expected, "INT");

    if tok == Tok::Equal
        && prev.is_some_and(|p| p.tok != Tok::Equal)
        && toks[ls..idx]
            .iter()
            .any(|t| matches!(t.tok, Tok::LPar | Tok::LSqb | Tok::LBrace))
        && !expects_expr
    {
        return Diagnostic::error("unexpected `=` inside brackets")
            .with_primary(span, "cannot assign here")
            .with_help("to compare, use `==`; a keyword argument is written `name=value` with a plain name");
    }
    if tok == Tok::ColonEqual {
        return Diagnostic::error("cannot use `:=` here")
            .with_primary(span, "`:=` can only assign to a plain name")
            .with_help(
                "use `=` in a separate statement to assign to an attribute, subscript or tuple",
            );
    }
    // `def = 3`, `class = 1`: a keyword used as a variable.
    if let Some(p) = prev
        && p.tok.is_keyword()
        && ls + 1 == idx
        && matches!(tok, Tok::Equal | Tok::ColonEqual)
    {
        let kw = p.tok.spelling().unwrap_or("");
        return Diagnostic::error(format!("`{kw}` is a keyword and cannot be used as a name"))
            .with_primary(p.span, "reserved keyword")
            .with_help(format!("choose another name, such as `{kw}_`"));
    }
    if tok == Tok::Colon
        && head.and_then(colon_context).is_none()
        && toks[ls..idx].iter().any(|t| t.tok == Tok::Comma)
    {
        return Diagnostic::error("only a single target can be annotated")
            .with_primary(span, "this annotation follows a tuple of targets")
            .with_help("annotate each variable on its own line: `a: int = 1`");
    }
    if expects_name && !expects_expr && !matches!(tok, Tok::Name(_)) {
        let msg = match prev {
            Some(p) if p.tok.spelling().is_some() => format!("expected a name after {prev_desc}"),
            _ => "expected a name".to_string(),
        };
        let mut d = Diagnostic::error(msg).with_primary(span, format!("found {found}"));
        if tok.is_keyword() {
            d = d.with_note(format!(
                "{tok} is a reserved keyword and cannot be used as a name"
            ));
        }
        return d;
    }
    let expects_colon = expected_has(&expected, ":");

    // `if x` NEWLINE / `def f()` NEWLINE / `if x = 1:`.
    if expects_colon
        && let Some(ctx) = head.and_then(colon_context)
        && !tok.starts_expr()
        && !(tok == Tok::Newline && expects_expr && prev.is_some_and(|p| binary_like(&p.tok)))
    {
        let mut d = Diagnostic::error(format!("expected `:` after {ctx}"));
        d = match (&tok, prev) {
            (Tok::Newline, Some(p)) => d.with_primary(
                Span::new(p.span.end as usize, p.span.end as usize),
                "a `:` is needed here",
            ),
            _ => d.with_primary(span, format!("expected `:`, found {found}")),
        };
        if tok == Tok::Equal {
            d = d.with_help("to compare values, use `==`; to assign inside a condition, use `:=`");
        }
        return d;
    }

    // The token is unexpected, so if an expression was possible here this token cannot start
    // one in this position (`*` and `not` start expressions only in some places).
    if expects_expr {
        let msg = match prev {
            Some(p)
                if !matches!(
                    p.tok,
                    Tok::Newline | Tok::Indent | Tok::Dedent | Tok::StartModule
                ) =>
            {
                format!("expected an expression after {prev_desc}")
            }
            _ => "expected an expression".to_string(),
        };
        let label = if tok == Tok::Newline || at_eof {
            "the line ends before the expression".to_string()
        } else {
            format!("found {found}")
        };
        let primary = if tok == Tok::Newline && !at_eof {
            Span::new(span.start as usize, span.start as usize)
        } else {
            span
        };
        let mut d = Diagnostic::error(msg).with_primary(primary, label);
        if matches!(tok, Tok::RPar | Tok::RSqb | Tok::RBrace)
            && prev.is_some_and(|p| p.tok == Tok::Comma)
        {
            d = d.with_help("remove the extra `,`");
        }
        return d;
    }

    // A complete expression followed by something that cannot continue it.
    if tok.starts_expr() || tok.is_keyword() {
        if expected_has(&expected, ",") && !expected_has(&expected, "NEWLINE") {
            return Diagnostic::error(format!("unexpected {found}"))
                .with_primary(span, "expected `,` or a closing bracket before this")
                .with_help("perhaps you forgot a comma?");
        }
        if expected_has(&expected, "NEWLINE") {
            let mut d =
                Diagnostic::error(format!("unexpected {found} after the end of a statement"))
                    .with_primary(span, "expected the end of the line or `;` before this");
            if let Some(p) = prev
                && tok.starts_expr()
                && let Tok::Name(pn) = &p.tok
                && ["print", "exec"].contains(&pn.as_str())
            {
                d = d.with_help(format!(
                    "`{pn}` is a function in Python 3: call it with parentheses"
                ));
            } else if let Some(Tok::Name(n)) = head
                && ["function", "fn", "func", "var", "let", "const"].contains(&n.as_str())
            {
                d = d.with_help(
                    "Python defines functions with `def` and needs no variable declarations",
                );
            } else {
                d = d.with_help("put each statement on its own line, or separate them with `;`");
            }
            return d;
        }
    }

    let names = readable_expected(&expected);
    if !names.is_empty() && names.len() <= 3 {
        let mut d = Diagnostic::error(format!("expected {}, found {found}", join_or(&names)))
            .with_primary(span, format!("expected {} here", join_or(&names)));
        if names.iter().any(|n| n == "`else`") && toks[ls..idx].iter().any(|t| t.tok == Tok::If) {
            d = d
                .with_note("a conditional expression needs both branches: `a if condition else b`");
        }
        if names.iter().any(|n| n == "`except`") {
            d = d.with_note("a `try` block needs an `except` or `finally` clause");
        }
        return d;
    }
    let mut d = Diagnostic::error(format!("unexpected {found}")).with_primary(
        span,
        match prev {
            Some(p) if !matches!(p.tok, Tok::Newline | Tok::Indent | Tok::Dedent) => {
                format!("this cannot follow {prev_desc}")
            }
            _ => "a statement cannot start with this".to_string(),
        },
    );
    if !names.is_empty() && names.len() <= 6 {
        d = d.with_note(format!("expected {}", join_or(&names)));
    }
    d
}

fn binary_like(t: &Tok) -> bool {
    t.spelling().is_some()
        && !matches!(
            t,
            Tok::RPar
                | Tok::RSqb
                | Tok::RBrace
                | Tok::True
                | Tok::False
                | Tok::None
                | Tok::Ellipsis
        )
}

fn describe_after(t: &Tok) -> String {
    match t {
        Tok::Name(n) => format!("`{n}`"),
        Tok::Int(v) => format!("`{v}`"),
        Tok::Str(_) => "the string".to_string(),
        other => other.to_string(),
    }
}

fn line_of(text: &str, offset: u32) -> usize {
    let end = (offset as usize).min(text.len());
    text.as_bytes()[..end]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

fn readable_expected(expected: &[String]) -> Vec<String> {
    expected
        .iter()
        .filter_map(|e| {
            let e = e.trim_matches('"');
            match e {
                "NEWLINE" => Some("the end of the line".to_string()),
                // `async` only continues a comprehension; naming it confuses more than it helps.
                "INDENT" | "DEDENT" | "START_MODULE" | "START_EXPR" | "async" => None,
                "NAME" => Some("a name".to_string()),
                "INT" | "FLOAT" | "IMAG" => Some("a number".to_string()),
                "STRING" => Some("a string".to_string()),
                other => Some(format!("`{other}`")),
            }
        })
        .fold(Vec::new(), |mut acc, s| {
            if !acc.contains(&s) {
                acc.push(s);
            }
            acc
        })
}

fn join_or(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [a] => a.clone(),
        [rest @ .., last] => format!("{} or {}", rest.join(", "), last),
    }
}

// ---- type comments -------------------------------------------------------------------------

fn attach_type_comments(body: &mut [Stmt], comments: &[RawTypeComment], text: &str) {
    if comments.is_empty() {
        return;
    }
    let line_end = |off: u32| -> usize {
        text[off as usize..]
            .find('\n')
            .map(|i| i + off as usize)
            .unwrap_or(text.len())
    };
    for stmt in body.iter_mut() {
        let span = stmt.span;
        match &mut stmt.kind {
            StmtKind::FunctionDef(f) => {
                // After the header (the last parameter, return annotation or name) and before the
                // first statement of the body: the trailing comment of the header line or a
                // comment line of its own right after it.
                let header_end = f
                    .returns
                    .as_ref()
                    .map(|r| r.span.end)
                    .or_else(|| last_param_end(&f.params))
                    .unwrap_or(f.name.span.end);
                let body_start = f.body.first().map(|s| s.span.start).unwrap_or(span.end);
                if let Some(c) = first_comment_in(comments, header_end, body_start as usize) {
                    f.type_comment = Some(TypeComment {
                        text: c.text.clone(),
                        span: c.span,
                    });
                }
            }
            StmtKind::Assign { type_comment, .. } => {
                let end = line_end(span.end);
                if let Some(c) = first_comment_in(comments, span.end, end) {
                    *type_comment = Some(TypeComment {
                        text: c.text.clone(),
                        span: c.span,
                    });
                }
            }
            _ => {}
        }
        for block in stmt.kind.blocks_mut() {
            attach_type_comments(block, comments, text);
        }
    }
}

/// The first comment starting in `from..to`; `comments` is in source order, so a binary search
/// keeps attaching linear in the file size.
fn first_comment_in(comments: &[RawTypeComment], from: u32, to: usize) -> Option<&RawTypeComment> {
    let i = comments.partition_point(|c| c.span.start < from);
    comments.get(i).filter(|c| (c.span.start as usize) < to)
}

fn last_param_end(p: &Parameters) -> Option<u32> {
    p.posonly
        .iter()
        .chain(&p.args)
        .chain(&p.vararg)
        .chain(&p.kwonly)
        .chain(&p.kwarg)
        .map(|q| q.span.end)
        .max()
}
