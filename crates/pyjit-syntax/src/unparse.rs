//! Prints an AST back as Python source. Parentheses are inserted from operator precedence (not
//! remembered from the input), so `parse(unparse(m))` equals `m` up to spans.

use crate::ast::*;
use std::fmt::Write;

// Precedence levels, loosest first (CPython's grammar tiers).
const P_TUPLE: u8 = 0;
const P_LAMBDA: u8 = 1;
const P_TEST: u8 = 2;
const P_OR: u8 = 3;
const P_AND: u8 = 4;
const P_NOT: u8 = 5;
const P_CMP: u8 = 6;
const P_BOR: u8 = 7;
const P_BXOR: u8 = 8;
const P_BAND: u8 = 9;
const P_SHIFT: u8 = 10;
const P_ARITH: u8 = 11;
const P_TERM: u8 = 12;
const P_FACTOR: u8 = 13;
const P_POWER: u8 = 14;
const P_AWAIT: u8 = 15;
const P_PRIMARY: u8 = 16;
const P_ATOM: u8 = 17;

fn binop_prec(op: BinOp) -> u8 {
    match op {
        BinOp::BitOr => P_BOR,
        BinOp::BitXor => P_BXOR,
        BinOp::BitAnd => P_BAND,
        BinOp::LShift | BinOp::RShift => P_SHIFT,
        BinOp::Add | BinOp::Sub => P_ARITH,
        BinOp::Mul | BinOp::MatMul | BinOp::Div | BinOp::FloorDiv | BinOp::Mod => P_TERM,
        BinOp::Pow => P_POWER,
    }
}

fn prec(e: &Expr) -> u8 {
    match &e.kind {
        ExprKind::Tuple(v) if !v.is_empty() => P_TUPLE,
        ExprKind::Yield(_) | ExprKind::YieldFrom(_) | ExprKind::NamedExpr { .. } => P_TUPLE,
        ExprKind::Lambda { .. } => P_LAMBDA,
        ExprKind::IfExp { .. } => P_TEST,
        ExprKind::BoolOp { op: BoolOp::Or, .. } => P_OR,
        ExprKind::BoolOp {
            op: BoolOp::And, ..
        } => P_AND,
        ExprKind::UnaryOp {
            op: UnaryOp::Not, ..
        } => P_NOT,
        ExprKind::Compare { .. } => P_CMP,
        ExprKind::BinOp { op, .. } => binop_prec(*op),
        ExprKind::UnaryOp { .. } => P_FACTOR,
        ExprKind::Await(_) => P_AWAIT,
        ExprKind::Call { .. } | ExprKind::Attribute { .. } | ExprKind::Subscript { .. } => {
            P_PRIMARY
        }
        ExprKind::Starred(_) => P_BOR,
        _ => P_ATOM,
    }
}

struct Unparser {
    out: String,
}

impl Unparser {
    fn indent(&mut self, level: usize) {
        for _ in 0..level {
            self.out.push_str("    ");
        }
    }

    fn block(&mut self, level: usize, body: &[Stmt]) {
        if body.is_empty() {
            self.indent(level);
            self.out.push_str("pass\n");
        }
        for s in body {
            self.stmt(level, s);
        }
    }

    fn stmt(&mut self, level: usize, s: &Stmt) {
        crate::grow(|| self.stmt_inner(level, s))
    }

    fn stmt_inner(&mut self, level: usize, s: &Stmt) {
        match &s.kind {
            StmtKind::FunctionDef(f) => {
                self.decorators(level, &f.decorators);
                self.indent(level);
                if f.is_async {
                    self.out.push_str("async ");
                }
                let params = self.params(&f.params, true);
                let _ = write!(self.out, "def {}({params})", f.name.name);
                if let Some(r) = &f.returns {
                    let r = self.expr_str(r, P_TEST);
                    let _ = write!(self.out, " -> {r}");
                }
                self.out.push_str(":\n");
                if let Some(tc) = &f.type_comment {
                    self.indent(level + 1);
                    let _ = writeln!(self.out, "# type: {}", tc.text);
                }
                self.block(level + 1, &f.body);
            }
            StmtKind::ClassDef(c) => {
                self.decorators(level, &c.decorators);
                let mut head = format!("class {}", c.name.name);
                if !c.bases.is_empty() || !c.keywords.is_empty() {
                    let args = self.args(&c.bases, &c.keywords);
                    let _ = write!(head, "({args})");
                }
                self.clause(level, &head, &c.body);
            }
            StmtKind::If { test, body, orelse } => self.if_chain("if", level, test, body, orelse),
            StmtKind::While { test, body, orelse } => {
                let t = self.expr_str(test, P_TEST);
                self.clause(level, &format!("while {t}"), body);
                self.else_block(level, orelse);
            }
            StmtKind::For(f) => {
                let t = self.expr_str(&f.target, P_TUPLE);
                let i = self.expr_str(&f.iter, P_TUPLE);
                let a = if f.is_async { "async " } else { "" };
                self.clause(level, &format!("{a}for {t} in {i}"), &f.body);
                self.else_block(level, &f.orelse);
            }
            StmtKind::With {
                items,
                body,
                is_async,
            } => {
                let items: Vec<String> = items
                    .iter()
                    .map(|i| {
                        let c = self.expr_str(&i.context, P_TEST);
                        match &i.vars {
                            Some(v) => format!("{c} as {}", self.expr_str(v, P_BOR)),
                            None => c,
                        }
                    })
                    .collect();
                let a = if *is_async { "async " } else { "" };
                self.clause(level, &format!("{a}with {}", items.join(", ")), body);
            }
            StmtKind::Try(t) => {
                self.clause(level, "try", &t.body);
                for h in &t.handlers {
                    let mut head = String::from("except");
                    if let Some(t) = &h.typ {
                        let t = self.expr_str(t, P_TEST);
                        let _ = write!(head, " {t}");
                        if let Some(n) = &h.name {
                            let _ = write!(head, " as {}", n.name);
                        }
                    }
                    self.clause(level, &head, &h.body);
                }
                self.else_block(level, &t.orelse);
                self.opt_clause(level, "finally", &t.finalbody);
            }
            _ => {
                self.indent(level);
                let line = self.simple(s);
                self.out.push_str(&line);
                self.out.push('\n');
            }
        }
    }

    fn if_chain(&mut self, kw: &str, level: usize, test: &Expr, body: &[Stmt], orelse: &[Stmt]) {
        let t = self.expr_str(test, P_TEST);
        self.clause(level, &format!("{kw} {t}"), body);
        if let [
            Stmt {
                kind: StmtKind::If { test, body, orelse },
                ..
            },
        ] = orelse
        {
            self.if_chain("elif", level, test, body, orelse);
        } else {
            self.else_block(level, orelse);
        }
    }

    fn else_block(&mut self, level: usize, orelse: &[Stmt]) {
        self.opt_clause(level, "else", orelse);
    }

    /// `head:` at `level` and the block `body` below it.
    fn clause(&mut self, level: usize, head: &str, body: &[Stmt]) {
        self.indent(level);
        let _ = writeln!(self.out, "{head}:");
        self.block(level + 1, body);
    }

    /// [`Self::clause`] unless `body` is empty (`else:`, `finally:`).
    fn opt_clause(&mut self, level: usize, head: &str, body: &[Stmt]) {
        if !body.is_empty() {
            self.clause(level, head, body);
        }
    }

    /// A `@decorator` line for each of `ds`.
    fn decorators(&mut self, level: usize, ds: &[Expr]) {
        for d in ds {
            self.indent(level);
            let t = self.expr_str(d, P_TEST);
            let _ = writeln!(self.out, "@{t}");
        }
    }

    fn simple(&mut self, s: &Stmt) -> String {
        match &s.kind {
            StmtKind::Return(None) => "return".into(),
            StmtKind::Return(Some(v)) => format!("return {}", self.expr_str(v, P_TUPLE)),
            StmtKind::Assign {
                targets,
                value,
                type_comment,
            } => {
                let mut line = String::new();
                for t in targets {
                    line.push_str(&self.expr_str(t, P_TUPLE));
                    line.push_str(" = ");
                }
                line.push_str(&self.value_str(value));
                if let Some(tc) = type_comment {
                    let _ = write!(line, "  # type: {}", tc.text);
                }
                line
            }
            StmtKind::AugAssign { target, op, value } => format!(
                "{} {}= {}",
                self.expr_str(target, P_TUPLE),
                op.symbol(),
                self.value_str(value)
            ),
            StmtKind::AnnAssign {
                target,
                annotation,
                value,
            } => {
                let mut line = format!(
                    "{}: {}",
                    self.expr_str(target, P_TEST),
                    self.expr_str(annotation, P_TEST)
                );
                if let Some(v) = value {
                    let _ = write!(line, " = {}", self.value_str(v));
                }
                line
            }
            StmtKind::Raise { exc, cause } => {
                let mut line = "raise".to_string();
                if let Some(e) = exc {
                    let _ = write!(line, " {}", self.expr_str(e, P_TEST));
                }
                if let Some(c) = cause {
                    let _ = write!(line, " from {}", self.expr_str(c, P_TEST));
                }
                line
            }
            StmtKind::Assert { test, msg } => {
                let mut line = format!("assert {}", self.expr_str(test, P_TEST));
                if let Some(m) = msg {
                    let _ = write!(line, ", {}", self.expr_str(m, P_TEST));
                }
                line
            }
            StmtKind::Import(names) => format!("import {}", aliases_text(names)),
            StmtKind::ImportFrom {
                module,
                names,
                level,
            } => format!("from {}", import_from_text(module, *level, names)),
            StmtKind::Global(ns) => format!("global {}", idents_text(ns)),
            StmtKind::Nonlocal(ns) => format!("nonlocal {}", idents_text(ns)),
            StmtKind::Del(ts) => {
                let ts: Vec<String> = ts.iter().map(|t| self.expr_str(t, P_BOR)).collect();
                format!("del {}", ts.join(", "))
            }
            StmtKind::Expr(e) => self.value_str(e),
            StmtKind::Pass => "pass".into(),
            StmtKind::Break => "break".into(),
            StmtKind::Continue => "continue".into(),
            // Compound statements are printed by `stmt`.
            _ => "pass".into(),
        }
    }

    /// The right-hand side of an assignment or an expression statement: a bare `yield` is fine.
    fn value_str(&mut self, e: &Expr) -> String {
        match &e.kind {
            ExprKind::Yield(_) | ExprKind::YieldFrom(_) => self.expr_inner(e),
            _ => self.expr_str(e, P_TUPLE),
        }
    }

    fn params(&mut self, p: &Parameters, typed: bool) -> String {
        let mut parts = Vec::new();
        let one = |u: &mut Unparser, q: &Param, prefix: &str| {
            let mut s = format!("{prefix}{}", q.name.name);
            if typed && let Some(a) = &q.annotation {
                let _ = write!(s, ": {}", u.expr_str(a, P_TEST));
            }
            if let Some(d) = &q.default {
                let d = u.expr_str(d, P_TEST);
                if typed && q.annotation.is_some() {
                    let _ = write!(s, " = {d}");
                } else {
                    let _ = write!(s, "={d}");
                }
            }
            s
        };
        for q in &p.posonly {
            parts.push(one(self, q, ""));
        }
        if !p.posonly.is_empty() {
            parts.push("/".to_string());
        }
        for q in &p.args {
            parts.push(one(self, q, ""));
        }
        if let Some(v) = &p.vararg {
            parts.push(one(self, v, "*"));
        } else if !p.kwonly.is_empty() {
            parts.push("*".to_string());
        }
        for q in &p.kwonly {
            parts.push(one(self, q, ""));
        }
        if let Some(k) = &p.kwarg {
            parts.push(one(self, k, "**"));
        }
        parts.join(", ")
    }

    fn args(&mut self, args: &[Expr], keywords: &[Keyword]) -> String {
        let mut parts: Vec<String> = args.iter().map(|a| self.expr_str(a, P_TEST)).collect();
        for k in keywords {
            let v = self.expr_str(&k.value, P_TEST);
            match &k.arg {
                Some(a) => parts.push(format!("{}={v}", a.name)),
                None => parts.push(format!("**{v}")),
            }
        }
        parts.join(", ")
    }

    /// `e` printed so that it parses back at precedence level `min` or tighter.
    fn expr_str(&mut self, e: &Expr, min: u8) -> String {
        crate::grow(|| self.expr_str_inner(e, min))
    }

    fn expr_str_inner(&mut self, e: &Expr, min: u8) -> String {
        let inner = self.expr_inner(e);
        // Yield and walrus are parenthesised everywhere except where `value_str` allows them.
        let always = matches!(
            e.kind,
            ExprKind::Yield(_) | ExprKind::YieldFrom(_) | ExprKind::NamedExpr { .. }
        );
        if prec(e) < min || always {
            format!("({inner})")
        } else {
            inner
        }
    }

    fn seq(&mut self, es: &[Expr]) -> String {
        es.iter()
            .map(|x| self.expr_str(x, P_TEST))
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn comps(&mut self, gens: &[Comprehension]) -> String {
        let mut s = String::new();
        for g in gens {
            let a = if g.is_async { " async" } else { "" };
            let t = self.expr_str(&g.target, P_TUPLE);
            let i = self.expr_str(&g.iter, P_OR);
            let _ = write!(s, "{a} for {t} in {i}");
            for c in &g.ifs {
                let c = self.expr_str(c, P_OR);
                let _ = write!(s, " if {c}");
            }
        }
        s
    }

    fn expr_inner(&mut self, e: &Expr) -> String {
        match &e.kind {
            ExprKind::Name(n) => n.clone(),
            ExprKind::Int(v) => v.to_string(),
            ExprKind::Float(v) => float_repr(*v),
            ExprKind::Imag(v) => format!("{}j", float_repr(*v)),
            ExprKind::Str(s) => str_repr(s),
            ExprKind::Bytes(b) => bytes_repr(b),
            ExprKind::FString(parts) => self.fstring(parts),
            ExprKind::Bool(true) => "True".into(),
            ExprKind::Bool(false) => "False".into(),
            ExprKind::None => "None".into(),
            ExprKind::Ellipsis => "...".into(),
            ExprKind::Tuple(es) => match es.len() {
                0 => "()".into(),
                1 => format!("{},", self.expr_str(&es[0], P_TEST)),
                _ => self.seq(es),
            },
            ExprKind::List(es) => format!("[{}]", self.seq(es)),
            ExprKind::Set(es) if es.is_empty() => "set()".into(),
            ExprKind::Set(es) => format!("{{{}}}", self.seq(es)),
            ExprKind::Dict(items) => {
                let parts: Vec<String> = items
                    .iter()
                    .map(|(k, v)| match k {
                        Some(k) => {
                            format!("{}: {}", self.expr_str(k, P_TEST), self.expr_str(v, P_TEST))
                        }
                        None => format!("**{}", self.expr_str(v, P_BOR)),
                    })
                    .collect();
                format!("{{{}}}", parts.join(", "))
            }
            ExprKind::Starred(x) => format!("*{}", self.expr_str(x, P_BOR)),
            ExprKind::BinOp { left, op, right } => {
                let p = binop_prec(*op);
                let (lmin, rmin) = if *op == BinOp::Pow {
                    (P_AWAIT, P_FACTOR)
                } else {
                    (p, p + 1)
                };
                format!(
                    "{} {} {}",
                    self.expr_str(left, lmin),
                    op.symbol(),
                    self.expr_str(right, rmin)
                )
            }
            ExprKind::UnaryOp { op, operand } => match op {
                UnaryOp::Not => format!("not {}", self.expr_str(operand, P_NOT)),
                _ => format!("{}{}", op.symbol(), self.expr_str(operand, P_FACTOR)),
            },
            ExprKind::BoolOp { op, values } => {
                let (word, min) = match op {
                    BoolOp::And => (" and ", P_NOT),
                    BoolOp::Or => (" or ", P_AND),
                };
                values
                    .iter()
                    .map(|v| self.expr_str(v, min))
                    .collect::<Vec<_>>()
                    .join(word)
            }
            ExprKind::Compare { left, ops } => {
                let mut s = self.expr_str(left, P_BOR);
                for (op, x) in ops {
                    let x = self.expr_str(x, P_BOR);
                    let _ = write!(s, " {} {x}", op.symbol());
                }
                s
            }
            ExprKind::IfExp { test, body, orelse } => format!(
                "{} if {} else {}",
                self.expr_str(body, P_OR),
                self.expr_str(test, P_OR),
                self.expr_str(orelse, P_TEST)
            ),
            ExprKind::Call {
                func,
                args,
                keywords,
            } => {
                let f = self.primary(func);
                let a = if let ([g], []) = (args.as_slice(), keywords.as_slice())
                    && matches!(g.kind, ExprKind::GeneratorExp { .. })
                {
                    self.expr_inner(g)
                } else {
                    self.args(args, keywords)
                };
                format!("{f}({a})")
            }
            ExprKind::Attribute { value, attr } => format!("{}.{}", self.primary(value), attr.name),
            ExprKind::Subscript { value, index } => {
                let v = self.primary(value);
                let i = match &index.kind {
                    ExprKind::Tuple(es) if !es.is_empty() => {
                        let parts: Vec<String> =
                            es.iter().map(|x| self.subscript_item(x)).collect();
                        if parts.len() == 1 {
                            format!("{},", parts[0])
                        } else {
                            parts.join(", ")
                        }
                    }
                    _ => self.subscript_item(index),
                };
                format!("{v}[{i}]")
            }
            ExprKind::Slice { .. } => self.subscript_item(e),
            ExprKind::Lambda { params, body } => {
                let p = self.params(params, false);
                let b = self.expr_str(body, P_LAMBDA);
                if p.is_empty() {
                    format!("lambda: {b}")
                } else {
                    format!("lambda {p}: {b}")
                }
            }
            ExprKind::ListComp { elt, generators } => {
                let e = self.expr_str(elt, P_TEST);
                format!("[{e}{}]", self.comps(generators))
            }
            ExprKind::SetComp { elt, generators } => {
                let e = self.expr_str(elt, P_TEST);
                format!("{{{e}{}}}", self.comps(generators))
            }
            ExprKind::GeneratorExp { elt, generators } => {
                let e = self.expr_str(elt, P_TEST);
                format!("({e}{})", self.comps(generators))
            }
            ExprKind::DictComp {
                key,
                value,
                generators,
            } => {
                let k = self.expr_str(key, P_TEST);
                let v = self.expr_str(value, P_TEST);
                format!("{{{k}: {v}{}}}", self.comps(generators))
            }
            ExprKind::NamedExpr { target, value } => {
                format!(
                    "{} := {}",
                    self.expr_str(target, P_ATOM),
                    self.expr_str(value, P_TEST)
                )
            }
            ExprKind::Await(x) => format!("await {}", self.expr_str(x, P_PRIMARY)),
            ExprKind::Yield(None) => "yield".into(),
            ExprKind::Yield(Some(x)) => format!("yield {}", self.expr_str(x, P_TUPLE)),
            ExprKind::YieldFrom(x) => format!("yield from {}", self.expr_str(x, P_TEST)),
        }
    }

    /// The value of a call, attribute or subscript; number literals need parentheses there
    /// (`1.real` would lex as `1.` then `real`).
    fn primary(&mut self, e: &Expr) -> String {
        match e.kind {
            ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Imag(_) => {
                format!("({})", self.expr_inner(e))
            }
            _ => self.expr_str(e, P_PRIMARY),
        }
    }

    fn subscript_item(&mut self, e: &Expr) -> String {
        match &e.kind {
            ExprKind::Slice { lower, upper, step } => {
                let mut s = String::new();
                if let Some(l) = lower {
                    s.push_str(&self.expr_str(l, P_TEST));
                }
                s.push(':');
                if let Some(u) = upper {
                    s.push_str(&self.expr_str(u, P_TEST));
                }
                if let Some(st) = step {
                    s.push(':');
                    s.push_str(&self.expr_str(st, P_TEST));
                }
                s
            }
            _ => self.expr_str(e, P_TEST),
        }
    }

    fn fstring(&mut self, parts: &[FStringPart]) -> String {
        let body = self.fstring_body(parts, false);
        // The replacement fields are plain source text, so pick a quote they do not use. A
        // format spec is raw text (no escapes): a line break in one (from a triple-quoted
        // f-string) needs triple quotes again.
        let multiline = body.contains(['\n', '\r']);
        let quote = if !multiline && !body.contains('"') {
            "\""
        } else if !multiline && !body.contains('\'') {
            "'"
        } else if !body.contains("\"\"\"") && !body.ends_with('"') {
            "\"\"\""
        } else {
            "'''"
        };
        format!("f{quote}{body}{quote}")
    }

    fn fstring_body(&mut self, parts: &[FStringPart], in_spec: bool) -> String {
        let mut s = String::new();
        for p in parts {
            match p {
                FStringPart::Literal(lit) => {
                    if in_spec {
                        // Spec text is not unescaped, but a backslash still hides the character
                        // after it from the scanner, so `\}` (from a raw f-string) would not close
                        // the field: a backslash is written as a nested field that yields one.
                        // A brace in spec text (`f"{a:\}}"` holds the spec `\}`) cannot be
                        // doubled there (the spec ends at its first `}`): a nested field too.
                        for c in lit.chars() {
                            match c {
                                '\\' => s.push_str("{'\\\\'}"),
                                '{' => s.push_str("{'{'}"),
                                '}' => s.push_str("{'}'}"),
                                c => s.push(c),
                            }
                        }
                    } else {
                        for c in lit.chars() {
                            match c {
                                '{' => s.push_str("{{"),
                                '}' => s.push_str("}}"),
                                _ => push_escaped(&mut s, c, None),
                            }
                        }
                    }
                }
                FStringPart::Expr(v) => {
                    let mut x = self.expr_str(&v.expr, P_TEST);
                    if x.starts_with('{') {
                        x = format!(" {x}");
                    }
                    s.push('{');
                    s.push_str(&x);
                    if v.debug {
                        s.push('=');
                    }
                    if let Some(c) = v.conversion {
                        s.push('!');
                        s.push(c);
                    }
                    if !v.format_spec.is_empty() {
                        s.push(':');
                        let spec = self.fstring_body(&v.format_spec, true);
                        s.push_str(&spec);
                    }
                    s.push('}');
                }
            }
        }
        s
    }
}

fn push_escaped(s: &mut String, c: char, quote: Option<char>) {
    match c {
        '\\' => s.push_str("\\\\"),
        '\n' => s.push_str("\\n"),
        '\r' => s.push_str("\\r"),
        '\t' => s.push_str("\\t"),
        '"' | '\'' if quote.is_none_or(|q| q == c) => {
            s.push('\\');
            s.push(c);
        }
        c if (c as u32) < 0x20 || c == '\x7f' => {
            let _ = write!(s, "\\x{:02x}", c as u32);
        }
        c => s.push(c),
    }
}

fn str_repr(v: &str) -> String {
    let q = if v.contains('\'') && !v.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut s = String::with_capacity(v.len() + 2);
    s.push(q);
    for c in v.chars() {
        push_escaped(&mut s, c, Some(q));
    }
    s.push(q);
    s
}

fn bytes_repr(b: &[u8]) -> String {
    let mut s = String::from("b'");
    for &c in b {
        match c {
            b'\\' => s.push_str("\\\\"),
            b'\'' => s.push_str("\\'"),
            b'\n' => s.push_str("\\n"),
            b'\r' => s.push_str("\\r"),
            b'\t' => s.push_str("\\t"),
            0x20..=0x7e => s.push(c as char),
            _ => {
                let _ = write!(s, "\\x{c:02x}");
            }
        }
    }
    s.push('\'');
    s
}

fn float_repr(v: f64) -> String {
    if v.is_infinite() {
        // Python has no literal for infinity; this overflows to it when parsed.
        return "1e999".into();
    }
    if v.is_nan() {
        return "(1e999 - 1e999)".into();
    }
    // Rust's shortest round-trip form is valid Python (`0.5`, `1e-6`, `1.0`).
    format!("{v:?}")
}

/// Python source for a module.
pub fn unparse(m: &Module) -> String {
    let mut u = Unparser { out: String::new() };
    for s in &m.body {
        u.stmt(0, s);
    }
    u.out
}

/// Python source for one expression.
pub fn unparse_expr(e: &Expr) -> String {
    let mut u = Unparser { out: String::new() };
    u.expr_str(e, P_TUPLE)
}
