//! Span erasure, so two trees can be compared for structure alone (the round-trip property:
//! `strip_spans(parse(unparse(m))) == strip_spans(m)`).

use crate::ast::*;
use crate::span::Span;

/// Sets every span in the module to [`Span::DUMMY`].
pub fn strip_spans(m: &mut Module) {
    m.span = Span::DUMMY;
    stmts(&mut m.body);
}

/// Sets every span in the expression to [`Span::DUMMY`].
pub fn strip_spans_expr(e: &mut Expr) {
    expr(e);
}

fn stmts(body: &mut [Stmt]) {
    for s in body {
        stmt(s);
    }
}

fn ident(i: &mut Ident) {
    i.span = Span::DUMMY;
}

fn opt(e: &mut Option<Expr>) {
    if let Some(e) = e {
        expr(e);
    }
}

fn opt_box(e: &mut Option<Box<Expr>>) {
    if let Some(e) = e {
        expr(e);
    }
}

fn stmt(s: &mut Stmt) {
    s.span = Span::DUMMY;
    match &mut s.kind {
        StmtKind::FunctionDef(f) => {
            ident(&mut f.name);
            params(&mut f.params);
            opt(&mut f.returns);
            f.decorators.iter_mut().for_each(expr);
            if let Some(tc) = &mut f.type_comment {
                tc.span = Span::DUMMY;
            }
        }
        StmtKind::ClassDef(c) => {
            ident(&mut c.name);
            c.bases.iter_mut().for_each(expr);
            keywords(&mut c.keywords);
            c.decorators.iter_mut().for_each(expr);
        }
        StmtKind::Return(v) => opt(v),
        StmtKind::Assign {
            targets,
            value,
            type_comment,
        } => {
            targets.iter_mut().for_each(expr);
            expr(value);
            if let Some(tc) = type_comment {
                tc.span = Span::DUMMY;
            }
        }
        StmtKind::AugAssign { target, value, .. } => {
            expr(target);
            expr(value);
        }
        StmtKind::AnnAssign {
            target,
            annotation,
            value,
        } => {
            expr(target);
            expr(annotation);
            opt(value);
        }
        StmtKind::For(For { target, iter, .. }) => {
            expr(target);
            expr(iter);
        }
        StmtKind::While { test, .. } | StmtKind::If { test, .. } => expr(test),
        StmtKind::With { items, .. } => {
            for i in items {
                expr(&mut i.context);
                opt(&mut i.vars);
            }
        }
        StmtKind::Raise { exc, cause } => {
            opt(exc);
            opt(cause);
        }
        StmtKind::Try(Try { handlers, .. }) => {
            for h in handlers {
                h.span = Span::DUMMY;
                opt(&mut h.typ);
                if let Some(n) = &mut h.name {
                    ident(n);
                }
            }
        }
        StmtKind::Assert { test, msg } => {
            expr(test);
            opt(msg);
        }
        StmtKind::Import(names) => aliases(names),
        StmtKind::ImportFrom { module, names, .. } => {
            if let Some(m) = module {
                ident(m);
            }
            aliases(names);
        }
        StmtKind::Global(ns) | StmtKind::Nonlocal(ns) => ns.iter_mut().for_each(ident),
        StmtKind::Del(ts) => ts.iter_mut().for_each(expr),
        StmtKind::Expr(e) => expr(e),
        StmtKind::Pass | StmtKind::Break | StmtKind::Continue => {}
    }
    for block in s.kind.blocks_mut() {
        stmts(block);
    }
}

fn aliases(names: &mut [Alias]) {
    for a in names {
        ident(&mut a.name);
        if let Some(s) = &mut a.asname {
            ident(s);
        }
    }
}

fn params(p: &mut Parameters) {
    for q in p
        .posonly
        .iter_mut()
        .chain(p.args.iter_mut())
        .chain(p.vararg.iter_mut())
        .chain(p.kwonly.iter_mut())
        .chain(p.kwarg.iter_mut())
    {
        q.span = Span::DUMMY;
        ident(&mut q.name);
        opt(&mut q.annotation);
        opt(&mut q.default);
    }
}

fn keywords(ks: &mut [Keyword]) {
    for k in ks {
        k.span = Span::DUMMY;
        if let Some(a) = &mut k.arg {
            ident(a);
        }
        expr(&mut k.value);
    }
}

fn comprehensions(gens: &mut [Comprehension]) {
    for g in gens {
        expr(&mut g.target);
        expr(&mut g.iter);
        g.ifs.iter_mut().for_each(expr);
    }
}

fn fstring(parts: &mut [FStringPart]) {
    for p in parts {
        if let FStringPart::Expr(v) = p {
            expr(&mut v.expr);
            fstring(&mut v.format_spec);
        }
    }
}

fn expr(e: &mut Expr) {
    e.span = Span::DUMMY;
    match &mut e.kind {
        ExprKind::Name(_)
        | ExprKind::Int(_)
        | ExprKind::Float(_)
        | ExprKind::Imag(_)
        | ExprKind::Str(_)
        | ExprKind::Bytes(_)
        | ExprKind::Bool(_)
        | ExprKind::None
        | ExprKind::Ellipsis => {}
        ExprKind::FString(parts) => fstring(parts),
        ExprKind::Tuple(es) | ExprKind::List(es) | ExprKind::Set(es) => {
            es.iter_mut().for_each(expr)
        }
        ExprKind::Dict(items) => {
            for (k, v) in items {
                opt(k);
                expr(v);
            }
        }
        ExprKind::Starred(x) | ExprKind::Await(x) | ExprKind::YieldFrom(x) => expr(x),
        ExprKind::Yield(x) => opt_box(x),
        ExprKind::BinOp { left, right, .. } => {
            expr(left);
            expr(right);
        }
        ExprKind::UnaryOp { operand, .. } => expr(operand),
        ExprKind::BoolOp { values, .. } => values.iter_mut().for_each(expr),
        ExprKind::Compare { left, ops } => {
            expr(left);
            for (_, x) in ops {
                expr(x);
            }
        }
        ExprKind::IfExp { test, body, orelse } => {
            expr(test);
            expr(body);
            expr(orelse);
        }
        ExprKind::Call {
            func,
            args,
            keywords: ks,
        } => {
            expr(func);
            args.iter_mut().for_each(expr);
            keywords(ks);
        }
        ExprKind::Attribute { value, attr } => {
            expr(value);
            ident(attr);
        }
        ExprKind::Subscript { value, index } => {
            expr(value);
            expr(index);
        }
        ExprKind::Slice { lower, upper, step } => {
            opt_box(lower);
            opt_box(upper);
            opt_box(step);
        }
        ExprKind::Lambda { params: p, body } => {
            params(p);
            expr(body);
        }
        ExprKind::ListComp { elt, generators }
        | ExprKind::SetComp { elt, generators }
        | ExprKind::GeneratorExp { elt, generators } => {
            expr(elt);
            comprehensions(generators);
        }
        ExprKind::DictComp {
            key,
            value,
            generators,
        } => {
            expr(key);
            expr(value);
            comprehensions(generators);
        }
        ExprKind::NamedExpr { target, value } => {
            expr(target);
            expr(value);
        }
    }
}
