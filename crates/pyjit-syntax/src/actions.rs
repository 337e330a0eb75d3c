//! Helpers the grammar's actions call: node construction, and the checks Python's grammar leaves
//! to a later pass (assignment targets, parameter order, argument order, string concatenation).

use crate::ast::*;
use crate::diagnostic::Diagnostic;
use crate::span::Span;
use crate::token::{StrPiece, Tok};
use lalrpop_util::ParseError;

pub(crate) type PResult<T> = Result<T, ParseError<usize, Tok, Diagnostic>>;

/// What the start symbol produced.
pub enum Top {
    Module(Vec<Stmt>),
    Expr(Expr),
}

pub fn user<T>(d: Diagnostic) -> PResult<T> {
    Err(ParseError::User { error: d })
}

pub fn sp(l: usize, r: usize) -> Span {
    Span::new(l, r)
}

pub(crate) fn ex(kind: ExprKind, l: usize, r: usize) -> Expr {
    Expr::new(kind, sp(l, r))
}

/// Statements are boxed while on the parser's stack: every stack slot is as large as the largest
/// grammar value, and an unboxed `Stmt` would triple the bytes moved by each reduction.
pub fn st(kind: StmtKind, l: usize, r: usize) -> Box<Stmt> {
    Box::new(Stmt {
        kind,
        span: sp(l, r),
    })
}

/// End offset of a block (its last statement), so compound statements do not swallow the blank
/// lines and dedents after them.
pub(crate) fn block_end(body: &[Stmt]) -> usize {
    body.last().map(|s| s.span.end as usize).unwrap_or(0)
}

pub fn binop(a: Expr, op: BinOp, b: Expr, l: usize, r: usize) -> Expr {
    ex(
        ExprKind::BinOp {
            left: Box::new(a),
            op,
            right: Box::new(b),
        },
        l,
        r,
    )
}

pub fn unary(op: UnaryOp, e: Expr, l: usize, r: usize) -> Expr {
    ex(
        ExprKind::UnaryOp {
            op,
            operand: Box::new(e),
        },
        l,
        r,
    )
}

pub(crate) fn boolop(op: BoolOp, first: Expr, rest: Vec<Expr>, l: usize, r: usize) -> Expr {
    let mut values = vec![first];
    values.extend(rest);
    ex(ExprKind::BoolOp { op, values }, l, r)
}

/// `a, b` is a tuple; a lone `a` is itself; `a,` is a one-element tuple.
pub(crate) fn tuple_or_single(mut v: Vec<Expr>, trailing: bool, l: usize, r: usize) -> Expr {
    if v.len() == 1 && !trailing {
        v.pop()
            .unwrap_or_else(|| ex(ExprKind::Tuple(Vec::new()), l, r))
    } else {
        ex(ExprKind::Tuple(v), l, r)
    }
}

/// `(e)` keeps `e` (with the parentheses in its span, so a diagnostic covers what the user wrote).
pub(crate) fn paren(v: Vec<Expr>, trailing: bool, l: usize, r: usize) -> PResult<Expr> {
    if v.len() == 1 && !trailing {
        let mut e = v
            .into_iter()
            .next()
            .unwrap_or_else(|| ex(ExprKind::Tuple(Vec::new()), l, r));
        if matches!(e.kind, ExprKind::Starred(_)) {
            return user(
                Diagnostic::error("cannot use a starred expression here")
                    .with_primary(
                        e.span,
                        "`*` unpacking needs a tuple, list or call around it",
                    )
                    .with_help("add a trailing comma to make a tuple: `(*x,)`"),
            );
        }
        e.span = sp(l, r);
        Ok(e)
    } else {
        Ok(ex(ExprKind::Tuple(v), l, r))
    }
}

pub fn strings(pieces: Vec<(usize, StrPiece, usize)>, l: usize, r: usize) -> PResult<Expr> {
    let has_bytes = pieces.iter().any(|p| matches!(p.1, StrPiece::Bytes(_)));
    let all_bytes = pieces.iter().all(|p| matches!(p.1, StrPiece::Bytes(_)));
    if has_bytes && !all_bytes {
        let first_bytes = pieces.iter().find(|p| matches!(p.1, StrPiece::Bytes(_)));
        let other = pieces.iter().find(|p| !matches!(p.1, StrPiece::Bytes(_)));
        let mut d = Diagnostic::error("cannot mix bytes and string literals");
        if let (Some(b), Some(s)) = (first_bytes, other) {
            d = d
                .with_primary(sp(b.0, b.2), "this is a bytes literal")
                .with_secondary(sp(s.0, s.2), "this is a string literal");
        } else {
            d = d.with_primary(sp(l, r), "here");
        }
        return user(d);
    }
    if all_bytes {
        let mut out = Vec::new();
        for (_, p, _) in pieces {
            if let StrPiece::Bytes(b) = p {
                out.extend(b);
            }
        }
        return Ok(ex(ExprKind::Bytes(out), l, r));
    }
    if pieces.iter().any(|p| matches!(p.1, StrPiece::FString(_))) {
        let mut parts: Vec<FStringPart> = Vec::new();
        let push_lit = |parts: &mut Vec<FStringPart>, s: String| {
            if s.is_empty() {
                return;
            }
            if let Some(FStringPart::Literal(prev)) = parts.last_mut() {
                prev.push_str(&s);
            } else {
                parts.push(FStringPart::Literal(s));
            }
        };
        for (_, p, _) in pieces {
            match p {
                StrPiece::Str(s) => push_lit(&mut parts, s),
                StrPiece::FString(ps) => {
                    for part in ps {
                        match part {
                            FStringPart::Literal(s) => push_lit(&mut parts, s),
                            e => parts.push(e),
                        }
                    }
                }
                StrPiece::Bytes(_) => {}
            }
        }
        return Ok(ex(ExprKind::FString(parts), l, r));
    }
    let mut s = String::new();
    for (_, p, _) in pieces {
        if let StrPiece::Str(x) = p {
            s.push_str(&x);
        }
    }
    Ok(ex(ExprKind::Str(s), l, r))
}

/// Where a target appears, for the wording of "cannot assign to ...".
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum TargetCtx {
    Assign,
    AugAssign,
    AnnAssign,
    Del,
    For,
    With,
    Comprehension,
}

fn describe(e: &Expr) -> &'static str {
    match &e.kind {
        ExprKind::Call { .. } => "a function call",
        ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Imag(_) => "a number",
        ExprKind::Str(_) | ExprKind::Bytes(_) => "a string literal",
        ExprKind::FString(_) => "an f-string",
        ExprKind::Bool(true) => "`True`",
        ExprKind::Bool(false) => "`False`",
        ExprKind::None => "`None`",
        ExprKind::Ellipsis => "`...`",
        ExprKind::Compare { .. } => "a comparison",
        ExprKind::BoolOp { .. } => "an `and`/`or` expression",
        ExprKind::BinOp { .. } | ExprKind::UnaryOp { .. } => "an expression",
        ExprKind::IfExp { .. } => "a conditional expression",
        ExprKind::Lambda { .. } => "a lambda",
        ExprKind::Dict(_) => "a dict display",
        ExprKind::Set(_) => "a set display",
        ExprKind::ListComp { .. } => "a list comprehension",
        ExprKind::SetComp { .. } => "a set comprehension",
        ExprKind::DictComp { .. } => "a dict comprehension",
        ExprKind::GeneratorExp { .. } => "a generator expression",
        ExprKind::NamedExpr { .. } => "a named expression",
        ExprKind::Await(_) => "an `await` expression",
        ExprKind::Yield(_) | ExprKind::YieldFrom(_) => "a `yield` expression",
        ExprKind::Slice { .. } => "a slice",
        ExprKind::Tuple(_) => "a tuple",
        ExprKind::List(_) => "a list",
        ExprKind::Starred(_) => "a starred expression",
        ExprKind::Name(_) | ExprKind::Attribute { .. } | ExprKind::Subscript { .. } => "a name",
    }
}

pub(crate) fn check_target(e: &Expr, ctx: TargetCtx) -> Result<(), Diagnostic> {
    if let ExprKind::Starred(_) = e.kind {
        return Err(
            Diagnostic::error("a starred target must be inside a tuple or list")
                .with_primary(e.span, "`*` unpacking needs other targets beside it")
                .with_help("add a trailing comma: `*a, = ...`"),
        );
    }
    check_target_inner(e, ctx)
}

fn check_target_inner(e: &Expr, ctx: TargetCtx) -> Result<(), Diagnostic> {
    let verb = match ctx {
        TargetCtx::Del => "delete",
        _ => "assign to",
    };
    match &e.kind {
        ExprKind::Name(_) | ExprKind::Attribute { .. } | ExprKind::Subscript { .. } => Ok(()),
        ExprKind::Tuple(elts) | ExprKind::List(elts)
            if !matches!(ctx, TargetCtx::AugAssign | TargetCtx::AnnAssign) =>
        {
            for elt in elts {
                check_target_inner(elt, ctx)?;
            }
            Ok(())
        }
        ExprKind::Starred(inner)
            if !matches!(
                ctx,
                TargetCtx::AugAssign | TargetCtx::AnnAssign | TargetCtx::Del
            ) =>
        {
            check_target_inner(inner, ctx)
        }
        _ => {
            let what = describe(e);
            let mut d = Diagnostic::error(format!("cannot {verb} {what}")).with_primary(
                e.span,
                format!("this is {what}, not a variable, attribute or subscript"),
            );
            match (&e.kind, ctx) {
                (ExprKind::Tuple(_) | ExprKind::List(_), TargetCtx::AugAssign) => {
                    d = Diagnostic::error(format!(
                        "cannot use {what} as the target of an augmented assignment"
                    ))
                    .with_primary(e.span, "augmented assignment needs a single target")
                    .with_help("assign to each element separately");
                }
                (ExprKind::Tuple(_) | ExprKind::List(_), TargetCtx::AnnAssign) => {
                    d = Diagnostic::error(format!(
                        "only a single target can be annotated, not {what}"
                    ))
                    .with_primary(e.span, "annotated assignment needs a single target");
                }
                (ExprKind::Starred(_), _) => {
                    d = Diagnostic::error("a starred target must be inside a tuple or list")
                        .with_primary(e.span, "`*` unpacking needs other targets beside it")
                        .with_help("add a trailing comma: `*a, = ...`");
                }
                (ExprKind::Compare { .. }, TargetCtx::Assign) => {
                    d = d.with_help("to compare two values, use `==` inside an expression");
                }
                (ExprKind::Call { .. }, TargetCtx::Assign) => {
                    d = d.with_help(
                        "to compare, use `==`; to assign, put a variable on the left of `=`",
                    );
                }
                _ => {}
            }
            Err(d)
        }
    }
}

pub fn target(e: Expr, ctx: TargetCtx) -> PResult<Expr> {
    match check_target(&e, ctx) {
        Ok(()) => Ok(e),
        Err(d) => user(d),
    }
}

pub fn assign(first: Expr, rest: Vec<Expr>, l: usize, r: usize) -> PResult<Box<Stmt>> {
    let mut all = vec![first];
    all.extend(rest);
    let value = all.pop().unwrap_or_else(|| ex(ExprKind::None, l, r));
    for t in &all {
        if let Err(d) = check_target(t, TargetCtx::Assign) {
            return user(d);
        }
    }
    Ok(st(
        StmtKind::Assign {
            targets: all,
            value,
            type_comment: None,
        },
        l,
        r,
    ))
}

pub(crate) enum ParamItem {
    Plain(Box<Param>),
    Slash(Span),
    Star(Option<Box<Param>>, Span),
    DoubleStar(Box<Param>, Span),
}

pub fn param(name: Ident, annotation: Option<Expr>, default: Option<Expr>) -> Box<Param> {
    let mut span = name.span;
    if let Some(a) = &annotation {
        span = span.to(a.span);
    }
    if let Some(d) = &default {
        span = span.to(d.span);
    }
    Box::new(Param {
        name,
        annotation,
        default,
        span,
    })
}

/// Sorts a flat parameter list into Python's five groups, checking the order rules.
pub fn params(items: Vec<ParamItem>) -> PResult<Parameters> {
    let mut p = Parameters::default();
    let mut seen_slash: Option<Span> = None;
    let mut seen_star: Option<Span> = None;
    let mut seen_kwarg: Option<Span> = None;
    let mut last_default: Option<Span> = None;
    for item in items {
        if let Some(k) = seen_kwarg {
            let span = match &item {
                ParamItem::Plain(q) => q.span,
                ParamItem::Slash(s) | ParamItem::Star(_, s) | ParamItem::DoubleStar(_, s) => *s,
            };
            return user(
                Diagnostic::error("parameters cannot follow `**kwargs`")
                    .with_primary(span, "this comes after the `**` parameter")
                    .with_secondary(k, "the `**` parameter must be last"),
            );
        }
        match item {
            ParamItem::Plain(q) => {
                if seen_star.is_some() {
                    p.kwonly.push(*q);
                    continue;
                }
                if q.default.is_some() {
                    last_default = Some(q.span);
                } else if let Some(d) = last_default {
                    return user(
                        Diagnostic::error(
                            "parameter without a default follows a parameter with a default",
                        )
                        .with_primary(q.name.span, "this parameter needs a default value too")
                        .with_secondary(d, "this parameter has a default"),
                    );
                }
                p.args.push(*q);
            }
            ParamItem::Slash(s) => {
                if let Some(prev) = seen_slash {
                    return user(
                        Diagnostic::error("`/` may appear only once in a parameter list")
                            .with_primary(s, "second `/`")
                            .with_secondary(prev, "first `/`"),
                    );
                }
                if let Some(star) = seen_star {
                    return user(
                        Diagnostic::error("`/` must come before `*`")
                            .with_primary(s, "this `/`")
                            .with_secondary(star, "comes after this `*`"),
                    );
                }
                if p.args.is_empty() {
                    return user(
                        Diagnostic::error("at least one parameter must precede `/`")
                            .with_primary(s, "nothing before this `/`"),
                    );
                }
                seen_slash = Some(s);
                p.posonly = std::mem::take(&mut p.args);
            }
            ParamItem::Star(v, s) => {
                if let Some(prev) = seen_star {
                    return user(
                        Diagnostic::error("`*` may appear only once in a parameter list")
                            .with_primary(s, "second `*`")
                            .with_secondary(prev, "first `*`"),
                    );
                }
                seen_star = Some(s);
                p.vararg = v.map(|b| *b);
            }
            ParamItem::DoubleStar(q, s) => {
                seen_kwarg = Some(s);
                p.kwarg = Some(*q);
            }
        }
    }
    if let Some(s) = seen_star
        && p.vararg.is_none()
        && p.kwonly.is_empty()
    {
        return user(
            Diagnostic::error("named parameters must follow a bare `*`")
                .with_primary(s, "this `*` is followed by no keyword-only parameter"),
        );
    }
    Ok(p)
}

pub(crate) enum ArgItem {
    Pos(Expr),
    /// A bare generator argument `f(x for x in y)`: it must be the only argument.
    Gen(Expr),
    Kw(Box<Keyword>),
}

pub fn call(func: Expr, items: Vec<ArgItem>, l: usize, r: usize) -> PResult<Expr> {
    let n = items.len();
    let mut args = Vec::new();
    let mut keywords: Vec<Keyword> = Vec::new();
    for item in items {
        match item {
            ArgItem::Gen(g) if n > 1 => {
                return user(
                    Diagnostic::error("a generator expression must be parenthesized")
                        .with_primary(g.span, "wrap this in parentheses")
                        .with_note(
                            "an unparenthesized generator is allowed only as the sole argument",
                        ),
                );
            }
            ArgItem::Pos(e) | ArgItem::Gen(e) => {
                if let Some(k) = keywords.last() {
                    let starred = matches!(e.kind, ExprKind::Starred(_));
                    if k.arg.is_none() && !starred {
                        return user(
                            Diagnostic::error(
                                "positional argument follows keyword argument unpacking",
                            )
                            .with_primary(e.span, "this positional argument")
                            .with_secondary(k.span, "comes after this `**` argument"),
                        );
                    }
                    if k.arg.is_some() && !starred {
                        return user(
                            Diagnostic::error("positional argument follows keyword argument")
                                .with_primary(e.span, "this positional argument")
                                .with_secondary(k.span, "comes after this keyword argument")
                                .with_help("put positional arguments before keyword arguments"),
                        );
                    }
                }
                args.push(e);
            }
            ArgItem::Kw(k) => {
                if let Some(name) = &k.arg
                    && let Some(prev) = keywords
                        .iter()
                        .find(|p| p.arg.as_ref().is_some_and(|a| a.name == name.name))
                {
                    return user(
                        Diagnostic::error(format!("keyword argument `{}` repeated", name.name))
                            .with_primary(name.span, "given again here")
                            .with_secondary(prev.span, "first given here"),
                    );
                }
                keywords.push(*k);
            }
        }
    }
    Ok(ex(
        ExprKind::Call {
            func: Box::new(func),
            args,
            keywords,
        },
        l,
        r,
    ))
}

pub(crate) fn if_chain(
    l: usize,
    test: Expr,
    body: Vec<Stmt>,
    elifs: Vec<(usize, Expr, Vec<Stmt>)>,
    orelse: Option<Vec<Stmt>>,
) -> Box<Stmt> {
    // Build from the last `elif` outwards: each `elif` is an `If` alone in its parent's `orelse`.
    let mut tail = orelse.unwrap_or_default();
    for (el, etest, ebody) in elifs.into_iter().rev() {
        let end = block_end(&tail).max(block_end(&ebody));
        tail = vec![*st(
            StmtKind::If {
                test: etest,
                body: ebody,
                orelse: tail,
            },
            el,
            end,
        )];
    }
    let end = block_end(&tail).max(block_end(&body));
    st(
        StmtKind::If {
            test,
            body,
            orelse: tail,
        },
        l,
        end,
    )
}

pub fn dotted(first: String, rest: Vec<String>, l: usize, r: usize) -> Ident {
    let mut name = first;
    for part in rest {
        name.push('.');
        name.push_str(&part);
    }
    Ident {
        name,
        span: sp(l, r),
    }
}
