//! A readable, stable, indented tree of an AST (what `pyjit parse` prints and snapshot tests
//! compare). One node per line: kind, its scalar payload, then `@start..end`; children indented
//! by two spaces under a `field:` line when a node has several kinds of children.

use crate::ast::*;
use crate::span::Span;
use std::borrow::Borrow;
use std::fmt::Write;

struct Dumper {
    out: String,
}

/// The deepest indentation the dump writes with spaces.
const MAX_DUMP_INDENT: usize = 40;

impl Dumper {
    fn line(&mut self, depth: usize, text: &str, span: Option<Span>) {
        // Beyond MAX_DUMP_INDENT levels the depth is written as a number instead of more spaces,
        // so the dump stays linear in the size of the tree (a long `elif` chain nests one level
        // per branch).
        for _ in 0..depth.min(MAX_DUMP_INDENT) {
            self.out.push_str("  ");
        }
        if depth > MAX_DUMP_INDENT {
            let _ = write!(self.out, "[depth {depth}] ");
        }
        self.out.push_str(text);
        if let Some(s) = span {
            let _ = write!(self.out, " @{}..{}", s.start, s.end);
        }
        self.out.push('\n');
    }

    fn field(&mut self, depth: usize, name: &str) {
        self.line(depth, &format!("{name}:"), None);
    }

    /// The field `name` with each of `items` below it (`each`), unless there are none.
    fn children<T>(
        &mut self,
        depth: usize,
        name: &str,
        items: &[T],
        each: fn(&mut Self, usize, &T),
    ) {
        if items.is_empty() {
            return;
        }
        self.field(depth, name);
        for it in items {
            each(self, depth + 1, it);
        }
    }

    fn stmts(&mut self, depth: usize, name: &str, body: &[Stmt]) {
        self.children(depth, name, body, Self::stmt);
    }

    /// The line `text` with the expressions `kids` below it.
    fn node<'e, E: Borrow<Expr> + 'e>(
        &mut self,
        depth: usize,
        text: &str,
        span: Option<Span>,
        kids: impl IntoIterator<Item = &'e E>,
    ) {
        self.line(depth, text, span);
        for k in kids {
            self.expr(depth + 1, k.borrow());
        }
    }

    /// The field `name` with expression `e` below it.
    fn named_expr(&mut self, depth: usize, name: &str, e: &Expr) {
        self.field(depth, name);
        self.expr(depth + 1, e);
    }

    fn opt_expr<E: Borrow<Expr>>(&mut self, depth: usize, name: &str, e: &Option<E>) {
        if let Some(e) = e {
            self.named_expr(depth, name, e.borrow());
        }
    }

    fn exprs(&mut self, depth: usize, name: &str, es: &[Expr]) {
        self.children(depth, name, es, Self::expr);
    }

    fn stmt(&mut self, d: usize, s: &Stmt) {
        crate::grow(|| self.stmt_inner(d, s))
    }

    fn stmt_inner(&mut self, d: usize, s: &Stmt) {
        let sp = Some(s.span);
        match &s.kind {
            StmtKind::FunctionDef(f) => {
                let a = if f.is_async {
                    "AsyncFunctionDef"
                } else {
                    "FunctionDef"
                };
                self.line(d, &format!("{a} {}", f.name.name), sp);
                self.exprs(d + 1, "decorators", &f.decorators);
                self.params(d + 1, &f.params);
                self.opt_expr(d + 1, "returns", &f.returns);
                if let Some(tc) = &f.type_comment {
                    self.line(d + 1, &format!("type_comment {:?}", tc.text), Some(tc.span));
                }
                self.stmts(d + 1, "body", &f.body);
            }
            StmtKind::ClassDef(c) => {
                self.line(d, &format!("ClassDef {}", c.name.name), sp);
                self.exprs(d + 1, "decorators", &c.decorators);
                self.exprs(d + 1, "bases", &c.bases);
                self.keywords(d + 1, &c.keywords);
                self.stmts(d + 1, "body", &c.body);
            }
            StmtKind::Return(v) => self.node(d, "Return", sp, v),
            StmtKind::Assign {
                targets,
                value,
                type_comment,
            } => {
                self.line(d, "Assign", sp);
                self.exprs(d + 1, "targets", targets);
                self.named_expr(d + 1, "value", value);
                if let Some(tc) = type_comment {
                    self.line(d + 1, &format!("type_comment {:?}", tc.text), Some(tc.span));
                }
            }
            StmtKind::AugAssign { target, op, value } => {
                let text = format!("AugAssign {}=", op.symbol());
                self.node(d, &text, sp, [target, value]);
            }
            StmtKind::AnnAssign {
                target,
                annotation,
                value,
            } => {
                self.line(d, "AnnAssign", sp);
                self.named_expr(d + 1, "target", target);
                self.named_expr(d + 1, "annotation", annotation);
                self.opt_expr(d + 1, "value", value);
            }
            StmtKind::For(f) => {
                self.line(d, if f.is_async { "AsyncFor" } else { "For" }, sp);
                self.named_expr(d + 1, "target", &f.target);
                self.named_expr(d + 1, "iter", &f.iter);
                self.stmts(d + 1, "body", &f.body);
                self.stmts(d + 1, "orelse", &f.orelse);
            }
            StmtKind::While { test, body, orelse } | StmtKind::If { test, body, orelse } => {
                let kind = if matches!(s.kind, StmtKind::While { .. }) {
                    "While"
                } else {
                    "If"
                };
                self.line(d, kind, sp);
                self.named_expr(d + 1, "test", test);
                self.stmts(d + 1, "body", body);
                self.stmts(d + 1, "orelse", orelse);
            }
            StmtKind::With {
                items,
                body,
                is_async,
            } => {
                self.line(d, if *is_async { "AsyncWith" } else { "With" }, sp);
                for item in items {
                    self.named_expr(d + 1, "item", &item.context);
                    self.opt_expr(d + 2, "as", &item.vars);
                }
                self.stmts(d + 1, "body", body);
            }
            StmtKind::Raise { exc, cause } => {
                self.line(d, "Raise", sp);
                self.opt_expr(d + 1, "exc", exc);
                self.opt_expr(d + 1, "cause", cause);
            }
            StmtKind::Try(t) => {
                self.line(d, "Try", sp);
                self.stmts(d + 1, "body", &t.body);
                for h in &t.handlers {
                    let name = h
                        .name
                        .as_ref()
                        .map(|n| format!(" as {}", n.name))
                        .unwrap_or_default();
                    self.line(d + 1, &format!("ExceptHandler{name}"), Some(h.span));
                    self.opt_expr(d + 2, "type", &h.typ);
                    self.stmts(d + 2, "body", &h.body);
                }
                self.stmts(d + 1, "orelse", &t.orelse);
                self.stmts(d + 1, "finalbody", &t.finalbody);
            }
            StmtKind::Assert { test, msg } => {
                self.line(d, "Assert", sp);
                self.expr(d + 1, test);
                self.opt_expr(d + 1, "msg", msg);
            }
            StmtKind::Import(names) => {
                self.line(d, &format!("Import {}", aliases_text(names)), sp);
            }
            StmtKind::ImportFrom {
                module,
                names,
                level,
            } => {
                let text = import_from_text(module, *level, names);
                self.line(d, &format!("ImportFrom {text}"), sp);
            }
            StmtKind::Global(n) => self.line(d, &format!("Global {}", idents_text(n)), sp),
            StmtKind::Nonlocal(n) => self.line(d, &format!("Nonlocal {}", idents_text(n)), sp),
            StmtKind::Del(ts) => {
                self.line(d, "Del", sp);
                for t in ts {
                    self.expr(d + 1, t);
                }
            }
            StmtKind::Expr(e) => {
                self.line(d, "Expr", sp);
                self.expr(d + 1, e);
            }
            StmtKind::Pass => self.line(d, "Pass", sp),
            StmtKind::Break => self.line(d, "Break", sp),
            StmtKind::Continue => self.line(d, "Continue", sp),
        }
    }

    fn params(&mut self, d: usize, p: &Parameters) {
        let groups: [(&str, &[Param]); 3] = [
            ("posonly", &p.posonly),
            ("args", &p.args),
            ("kwonly", &p.kwonly),
        ];
        for (name, list) in groups {
            if list.is_empty() {
                continue;
            }
            self.field(d, name);
            for q in list {
                self.param(d + 1, "arg", q);
            }
        }
        if let Some(v) = &p.vararg {
            self.param(d, "vararg", v);
        }
        if let Some(k) = &p.kwarg {
            self.param(d, "kwarg", k);
        }
    }

    fn param(&mut self, d: usize, kind: &str, q: &Param) {
        self.line(d, &format!("{kind} {}", q.name.name), Some(q.span));
        self.opt_expr(d + 1, "annotation", &q.annotation);
        self.opt_expr(d + 1, "default", &q.default);
    }

    fn keywords(&mut self, d: usize, ks: &[Keyword]) {
        for k in ks {
            let name = k.arg.as_ref().map(|a| a.name.as_str()).unwrap_or("**");
            self.line(d, &format!("keyword {name}"), Some(k.span));
            self.expr(d + 1, &k.value);
        }
    }

    fn comprehensions(&mut self, d: usize, gens: &[Comprehension]) {
        for g in gens {
            self.line(d, if g.is_async { "async for" } else { "for" }, None);
            self.expr(d + 1, &g.target);
            self.named_expr(d + 1, "in", &g.iter);
            self.exprs(d + 1, "if", &g.ifs);
        }
    }

    fn fstring_parts(&mut self, d: usize, parts: &[FStringPart]) {
        for p in parts {
            match p {
                FStringPart::Literal(s) => self.line(d, &format!("Literal {s:?}"), None),
                FStringPart::Expr(v) => {
                    let mut head = "Field".to_string();
                    if v.debug {
                        head.push_str(" =");
                    }
                    if let Some(c) = v.conversion {
                        let _ = write!(head, " !{c}");
                    }
                    self.line(d, &head, None);
                    self.expr(d + 1, &v.expr);
                    if !v.format_spec.is_empty() {
                        self.field(d + 1, "format_spec");
                        self.fstring_parts(d + 2, &v.format_spec);
                    }
                }
            }
        }
    }

    fn expr(&mut self, d: usize, e: &Expr) {
        crate::grow(|| self.expr_inner(d, e))
    }

    fn expr_inner(&mut self, d: usize, e: &Expr) {
        let sp = Some(e.span);
        match &e.kind {
            ExprKind::Name(n) => self.line(d, &format!("Name {n}"), sp),
            ExprKind::Int(v) => self.line(d, &format!("Int {v}"), sp),
            ExprKind::Float(v) => self.line(d, &format!("Float {v:?}"), sp),
            ExprKind::Imag(v) => self.line(d, &format!("Imag {v:?}j"), sp),
            ExprKind::Str(s) => self.line(d, &format!("Str {s:?}"), sp),
            ExprKind::Bytes(b) => {
                let s: String = b
                    .iter()
                    .flat_map(|&c| std::ascii::escape_default(c))
                    .map(char::from)
                    .collect();
                self.line(d, &format!("Bytes b\"{s}\""), sp)
            }
            ExprKind::FString(parts) => {
                self.line(d, "FString", sp);
                self.fstring_parts(d + 1, parts);
            }
            ExprKind::Bool(b) => self.line(d, if *b { "True" } else { "False" }, sp),
            ExprKind::None => self.line(d, "None", sp),
            ExprKind::Ellipsis => self.line(d, "Ellipsis", sp),
            ExprKind::Tuple(es) | ExprKind::List(es) | ExprKind::Set(es) => {
                let k = match &e.kind {
                    ExprKind::Tuple(_) => "Tuple",
                    ExprKind::List(_) => "List",
                    _ => "Set",
                };
                self.node(d, k, sp, es);
            }
            ExprKind::Dict(items) => {
                self.line(d, "Dict", sp);
                for (k, v) in items {
                    match k {
                        Some(k) => {
                            self.named_expr(d + 1, "key", k);
                            self.field(d + 1, "value");
                        }
                        None => self.field(d + 1, "**"),
                    }
                    self.expr(d + 2, v);
                }
            }
            ExprKind::Starred(x) => self.node(d, "Starred", sp, [x]),
            ExprKind::BinOp { left, op, right } => {
                self.node(d, &format!("BinOp {}", op.symbol()), sp, [left, right]);
            }
            ExprKind::UnaryOp { op, operand } => {
                self.node(d, &format!("UnaryOp {}", op.symbol()), sp, [operand]);
            }
            ExprKind::BoolOp { op, values } => {
                let o = match op {
                    BoolOp::And => "and",
                    BoolOp::Or => "or",
                };
                self.node(d, &format!("BoolOp {o}"), sp, values);
            }
            ExprKind::Compare { left, ops } => {
                self.line(d, "Compare", sp);
                self.expr(d + 1, left);
                for (op, x) in ops {
                    self.line(d + 1, op.symbol(), None);
                    self.expr(d + 1, x);
                }
            }
            ExprKind::IfExp { test, body, orelse } => {
                self.line(d, "IfExp", sp);
                self.named_expr(d + 1, "test", test);
                self.named_expr(d + 1, "body", body);
                self.named_expr(d + 1, "orelse", orelse);
            }
            ExprKind::Call {
                func,
                args,
                keywords,
            } => {
                self.line(d, "Call", sp);
                self.expr(d + 1, func);
                self.exprs(d + 1, "args", args);
                self.keywords(d + 1, keywords);
            }
            ExprKind::Attribute { value, attr } => {
                self.node(d, &format!("Attribute .{}", attr.name), sp, [value]);
            }
            ExprKind::Subscript { value, index } => {
                self.line(d, "Subscript", sp);
                self.expr(d + 1, value);
                self.named_expr(d + 1, "index", index);
            }
            ExprKind::Slice { lower, upper, step } => {
                self.line(d, "Slice", sp);
                for (name, part) in [("lower", lower), ("upper", upper), ("step", step)] {
                    self.opt_expr(d + 1, name, part);
                }
            }
            ExprKind::Lambda { params, body } => {
                self.line(d, "Lambda", sp);
                self.params(d + 1, params);
                self.named_expr(d + 1, "body", body);
            }
            ExprKind::ListComp { elt, generators }
            | ExprKind::SetComp { elt, generators }
            | ExprKind::GeneratorExp { elt, generators } => {
                let k = match &e.kind {
                    ExprKind::ListComp { .. } => "ListComp",
                    ExprKind::SetComp { .. } => "SetComp",
                    _ => "GeneratorExp",
                };
                self.line(d, k, sp);
                self.expr(d + 1, elt);
                self.comprehensions(d + 1, generators);
            }
            ExprKind::DictComp {
                key,
                value,
                generators,
            } => {
                self.line(d, "DictComp", sp);
                self.expr(d + 1, key);
                self.expr(d + 1, value);
                self.comprehensions(d + 1, generators);
            }
            ExprKind::NamedExpr { target, value } => {
                self.node(d, "NamedExpr", sp, [target, value]);
            }
            ExprKind::Await(x) => self.node(d, "Await", sp, [x]),
            ExprKind::Yield(x) => self.node(d, "Yield", sp, x),
            ExprKind::YieldFrom(x) => self.node(d, "YieldFrom", sp, [x]),
        }
    }
}

/// The indented tree of a module.
pub fn dump(m: &Module) -> String {
    let mut d = Dumper { out: String::new() };
    d.line(0, "Module", Some(m.span));
    for s in &m.body {
        d.stmt(1, s);
    }
    d.out
}

/// The indented tree of one expression.
pub fn dump_expr(e: &Expr) -> String {
    let mut d = Dumper { out: String::new() };
    d.expr(0, e);
    d.out
}
