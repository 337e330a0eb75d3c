//! A readable, stable, indented tree of an AST (what `pyjit parse` prints and snapshot tests
//! compare). One node per line: kind, its scalar payload, then `@start..end`; children indented
//! by two spaces under a `field:` line when a node has several kinds of children.

use crate::ast::*;
use crate::span::Span;
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

    fn stmts(&mut self, depth: usize, name: &str, body: &[Stmt]) {
        if body.is_empty() {
            return;
        }
        self.field(depth, name);
        for s in body {
            self.stmt(depth + 1, s);
        }
    }

    fn opt_expr(&mut self, depth: usize, name: &str, e: &Option<Expr>) {
        if let Some(e) = e {
            self.field(depth, name);
            self.expr(depth + 1, e);
        }
    }

    fn exprs(&mut self, depth: usize, name: &str, es: &[Expr]) {
        if es.is_empty() {
            return;
        }
        self.field(depth, name);
        for e in es {
            self.expr(depth + 1, e);
        }
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
            StmtKind::Return(v) => {
                self.line(d, "Return", sp);
                if let Some(v) = v {
                    self.expr(d + 1, v);
                }
            }
            StmtKind::Assign {
                targets,
                value,
                type_comment,
            } => {
                self.line(d, "Assign", sp);
                self.exprs(d + 1, "targets", targets);
                self.field(d + 1, "value");
                self.expr(d + 2, value);
                if let Some(tc) = type_comment {
                    self.line(d + 1, &format!("type_comment {:?}", tc.text), Some(tc.span));
                }
            }
            StmtKind::AugAssign { target, op, value } => {
                self.line(d, &format!("AugAssign {}=", op.symbol()), sp);
                self.expr(d + 1, target);
                self.expr(d + 1, value);
            }
            StmtKind::AnnAssign {
                target,
                annotation,
                value,
            } => {
                self.line(d, "AnnAssign", sp);
                self.field(d + 1, "target");
                self.expr(d + 2, target);
                self.field(d + 1, "annotation");
                self.expr(d + 2, annotation);
                self.opt_expr(d + 1, "value", value);
            }
            StmtKind::For {
                target,
                iter,
                body,
                orelse,
                is_async,
            } => {
                self.line(d, if *is_async { "AsyncFor" } else { "For" }, sp);
                self.field(d + 1, "target");
                self.expr(d + 2, target);
                self.field(d + 1, "iter");
                self.expr(d + 2, iter);
                self.stmts(d + 1, "body", body);
                self.stmts(d + 1, "orelse", orelse);
            }
            StmtKind::While { test, body, orelse } => {
                self.line(d, "While", sp);
                self.field(d + 1, "test");
                self.expr(d + 2, test);
                self.stmts(d + 1, "body", body);
                self.stmts(d + 1, "orelse", orelse);
            }
            StmtKind::If { test, body, orelse } => {
                self.line(d, "If", sp);
                self.field(d + 1, "test");
                self.expr(d + 2, test);
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
                    self.field(d + 1, "item");
                    self.expr(d + 2, &item.context);
                    self.opt_expr(d + 2, "as", &item.vars);
                }
                self.stmts(d + 1, "body", body);
            }
            StmtKind::Raise { exc, cause } => {
                self.line(d, "Raise", sp);
                self.opt_expr(d + 1, "exc", exc);
                self.opt_expr(d + 1, "cause", cause);
            }
            StmtKind::Try {
                body,
                handlers,
                orelse,
                finalbody,
            } => {
                self.line(d, "Try", sp);
                self.stmts(d + 1, "body", body);
                for h in handlers {
                    let name = h
                        .name
                        .as_ref()
                        .map(|n| format!(" as {}", n.name))
                        .unwrap_or_default();
                    self.line(d + 1, &format!("ExceptHandler{name}"), Some(h.span));
                    self.opt_expr(d + 2, "type", &h.typ);
                    self.stmts(d + 2, "body", &h.body);
                }
                self.stmts(d + 1, "orelse", orelse);
                self.stmts(d + 1, "finalbody", finalbody);
            }
            StmtKind::Assert { test, msg } => {
                self.line(d, "Assert", sp);
                self.expr(d + 1, test);
                self.opt_expr(d + 1, "msg", msg);
            }
            StmtKind::Import(names) => {
                self.line(d, &format!("Import {}", aliases(names)), sp);
            }
            StmtKind::ImportFrom {
                module,
                names,
                level,
            } => {
                let m = module.as_ref().map(|m| m.name.as_str()).unwrap_or("");
                let dots = ".".repeat(*level as usize);
                self.line(
                    d,
                    &format!("ImportFrom {dots}{m} import {}", aliases(names)),
                    sp,
                );
            }
            StmtKind::Global(n) => self.line(d, &format!("Global {}", idents(n)), sp),
            StmtKind::Nonlocal(n) => self.line(d, &format!("Nonlocal {}", idents(n)), sp),
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
            self.field(d + 1, "in");
            self.expr(d + 2, &g.iter);
            self.exprs(d + 1, "if", &g.ifs);
        }
    }

    fn fstring_parts(&mut self, d: usize, parts: &[FStringPart]) {
        for p in parts {
            match p {
                FStringPart::Literal(s) => self.line(d, &format!("Literal {s:?}"), None),
                FStringPart::Expr {
                    expr,
                    conversion,
                    format_spec,
                    debug,
                } => {
                    let mut head = "Field".to_string();
                    if *debug {
                        head.push_str(" =");
                    }
                    if let Some(c) = conversion {
                        let _ = write!(head, " !{c}");
                    }
                    self.line(d, &head, None);
                    self.expr(d + 1, expr);
                    if !format_spec.is_empty() {
                        self.field(d + 1, "format_spec");
                        self.fstring_parts(d + 2, format_spec);
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
                self.line(d, k, sp);
                for x in es {
                    self.expr(d + 1, x);
                }
            }
            ExprKind::Dict(items) => {
                self.line(d, "Dict", sp);
                for (k, v) in items {
                    match k {
                        Some(k) => {
                            self.field(d + 1, "key");
                            self.expr(d + 2, k);
                            self.field(d + 1, "value");
                        }
                        None => self.field(d + 1, "**"),
                    }
                    self.expr(d + 2, v);
                }
            }
            ExprKind::Starred(x) => {
                self.line(d, "Starred", sp);
                self.expr(d + 1, x);
            }
            ExprKind::BinOp { left, op, right } => {
                self.line(d, &format!("BinOp {}", op.symbol()), sp);
                self.expr(d + 1, left);
                self.expr(d + 1, right);
            }
            ExprKind::UnaryOp { op, operand } => {
                self.line(d, &format!("UnaryOp {}", op.symbol()), sp);
                self.expr(d + 1, operand);
            }
            ExprKind::BoolOp { op, values } => {
                let o = match op {
                    BoolOp::And => "and",
                    BoolOp::Or => "or",
                };
                self.line(d, &format!("BoolOp {o}"), sp);
                for v in values {
                    self.expr(d + 1, v);
                }
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
                self.field(d + 1, "test");
                self.expr(d + 2, test);
                self.field(d + 1, "body");
                self.expr(d + 2, body);
                self.field(d + 1, "orelse");
                self.expr(d + 2, orelse);
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
                self.line(d, &format!("Attribute .{}", attr.name), sp);
                self.expr(d + 1, value);
            }
            ExprKind::Subscript { value, index } => {
                self.line(d, "Subscript", sp);
                self.expr(d + 1, value);
                self.field(d + 1, "index");
                self.expr(d + 2, index);
            }
            ExprKind::Slice { lower, upper, step } => {
                self.line(d, "Slice", sp);
                for (name, part) in [("lower", lower), ("upper", upper), ("step", step)] {
                    if let Some(p) = part {
                        self.field(d + 1, name);
                        self.expr(d + 2, p);
                    }
                }
            }
            ExprKind::Lambda { params, body } => {
                self.line(d, "Lambda", sp);
                self.params(d + 1, params);
                self.field(d + 1, "body");
                self.expr(d + 2, body);
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
                self.line(d, "NamedExpr", sp);
                self.expr(d + 1, target);
                self.expr(d + 1, value);
            }
            ExprKind::Await(x) => {
                self.line(d, "Await", sp);
                self.expr(d + 1, x);
            }
            ExprKind::Yield(x) => {
                self.line(d, "Yield", sp);
                if let Some(x) = x {
                    self.expr(d + 1, x);
                }
            }
            ExprKind::YieldFrom(x) => {
                self.line(d, "YieldFrom", sp);
                self.expr(d + 1, x);
            }
        }
    }
}

fn aliases(names: &[Alias]) -> String {
    names
        .iter()
        .map(|a| match &a.asname {
            Some(s) => format!("{} as {}", a.name.name, s.name),
            None => a.name.name.clone(),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn idents(names: &[Ident]) -> String {
    names
        .iter()
        .map(|n| n.name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
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
