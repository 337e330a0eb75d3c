//! The construct checker: rejects, before any typing, every Python construct LANGUAGE.md does not
//! accept, with a diagnostic that names the construct, puts the caret on it and says what to write
//! instead. Running it first means a function with several unsupported constructs reports them all,
//! and the lowering never has to handle them.

use pyjit_syntax::Diagnostic;
use pyjit_syntax::Span;
use pyjit_syntax::ast::{Expr, ExprKind, FunctionDef, Keyword, Parameters, Stmt, StmtKind};

/// Checks one module-level function: its signature and its body.
pub(crate) fn check_function(def: &FunctionDef, src: &str, out: &mut Vec<Diagnostic>) {
    if def.is_async {
        out.push(err(
            "`async` functions are not supported",
            def.name.span,
            "declared `async def`",
            "remove `async`; compiled functions run synchronously",
        ));
    }
    check_params(&def.params, out);
    let mut c = Checker { out, src };
    c.block(&def.body, true);
}

/// Rejects `*args` / `**kwargs` parameters.
pub(crate) fn check_params(params: &Parameters, out: &mut Vec<Diagnostic>) {
    if let Some(p) = &params.vararg {
        out.push(err(
            format!("variadic parameter `*{}` is not supported", p.name.name),
            p.span,
            "`*args` parameter",
            "take a `List[T]` parameter, or a fixed number of parameters",
        ));
    }
    if let Some(p) = &params.kwarg {
        out.push(err(
            format!(
                "keyword-variadic parameter `**{}` is not supported",
                p.name.name
            ),
            p.span,
            "`**kwargs` parameter",
            "declare each keyword parameter with a default value instead",
        ));
    }
}

struct Checker<'o> {
    out: &'o mut Vec<Diagnostic>,
    src: &'o str,
}

/// For a construct tracing accepts (the tracer evaluates it as Python would): adds to the help
/// that `--mode trace` runs the function as it is.
pub(crate) fn traceable(d: Diagnostic, what: &str) -> Diagnostic {
    let tip = format!(
        "or trace the function instead of scripting it (`--mode trace`): tracing evaluates {what} as Python does and records only the tensor operations"
    );
    let help = match &d.help {
        Some(h) => format!("{h}; {tip}"),
        None => tip,
    };
    d.with_help(help)
}

fn err(msg: impl Into<String>, span: Span, label: &str, help: &str) -> Diagnostic {
    let d = Diagnostic::error(msg).with_primary(span, label);
    if help.is_empty() {
        d
    } else {
        d.with_help(help)
    }
}

/// The span of a statement's first line (its keyword), so carets on compound statements stay on
/// one line.
fn head_span(s: &Stmt, keyword: &str) -> Span {
    Span::new(s.span.start as usize, s.span.start as usize + keyword.len())
}

impl Checker<'_> {
    fn push(&mut self, d: Diagnostic) {
        self.out.push(d);
    }

    fn block(&mut self, body: &[Stmt], top: bool) {
        for (i, s) in body.iter().enumerate() {
            // A docstring: a string expression statement first in a function body.
            if top
                && i == 0
                && let StmtKind::Expr(e) = &s.kind
                && matches!(e.kind, ExprKind::Str(_))
            {
                continue;
            }
            self.stmt(s);
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        crate::lower::with_stack(|| self.stmt_inner(s))
    }

    fn stmt_inner(&mut self, s: &Stmt) {
        match &s.kind {
            StmtKind::FunctionDef(def) => {
                self.push(traceable(err(
                    format!(
                        "nested function definition `{}` is not supported",
                        def.name.name
                    ),
                    def.name.span,
                    "function defined inside another function",
                    &format!(
                        "move `{}` to module level and pass the values it uses as parameters",
                        def.name.name
                    ),
                ), "nested functions"));
            }
            StmtKind::ClassDef(c) => self.push(traceable(
                err(
                    format!("class definition `{}` is not supported", c.name.name),
                    c.name.span,
                    "class defined here",
                    "write the methods as module-level functions that take the fields as parameters",
                ),
                "classes",
            )),
            StmtKind::Return(v) => {
                if let Some(v) = v {
                    self.expr(v, false);
                }
            }
            StmtKind::Assign { targets, value, .. } => {
                for t in targets {
                    self.target(t);
                }
                self.expr(value, false);
            }
            StmtKind::AugAssign { target, value, .. } => {
                self.target(target);
                self.expr(value, false);
            }
            StmtKind::AnnAssign { target, value, .. } => {
                self.target(target);
                if let Some(v) = value {
                    self.expr(v, false);
                }
            }
            StmtKind::For(f) => {
                if f.is_async {
                    self.push(err(
                        "`async for` is not supported",
                        head_span(s, "async for"),
                        "asynchronous loop",
                        "use a plain `for` loop",
                    ));
                }
                self.loop_else("for", &f.orelse);
                self.target(&f.target);
                self.expr(&f.iter, false);
                self.block(&f.body, false);
                self.block(&f.orelse, false);
            }
            StmtKind::While { test, body, orelse } => {
                self.loop_else("while", orelse);
                self.expr(test, false);
                self.block(body, false);
                self.block(orelse, false);
            }
            StmtKind::If { test, body, orelse } => {
                self.expr(test, false);
                self.block(body, false);
                self.block(orelse, false);
            }
            StmtKind::With { items, body, .. } => {
                // `with torch.no_grad():` (and `enable_grad`, `inference_mode`): no autograd
                // here, so the body runs as is. Other context managers are rejected.
                for it in items {
                    let known = match &it.context.kind {
                        ExprKind::Call {
                            func,
                            args,
                            keywords,
                        } if args.is_empty() && keywords.is_empty() => {
                            func.dotted_name().is_some_and(|n| {
                                matches!(
                                    n.rsplit('.').next(),
                                    Some("no_grad" | "enable_grad" | "inference_mode")
                                )
                            })
                        }
                        _ => false,
                    };
                    if !known || it.vars.is_some() {
                        self.push(err(
                            "this `with` statement is not supported",
                            it.context.span,
                            "context manager",
                            "only `with torch.no_grad():`, `with torch.enable_grad():` and `with torch.inference_mode():` are accepted (they have no effect: there is no autograd)",
                        ));
                    }
                }
                self.block(body, false);
            }
            StmtKind::Raise { exc, cause } => {
                match exc {
                    None => self.push(err(
                        "bare `raise` (re-raising) is not supported",
                        s.span,
                        "there is no exception to re-raise",
                        "raise a new exception: `raise Exception(\"message\")`",
                    )),
                    Some(e) => self.expr(e, true),
                }
                if let Some(c) = cause {
                    self.push(err(
                        "`raise ... from ...` is not supported",
                        c.span,
                        "exception cause",
                        "drop the `from` clause",
                    ));
                }
            }
            StmtKind::Try(t) => {
                self.push(traceable(
                    err(
                        "`try` statements are not supported",
                        head_span(s, "try"),
                        "`try` statement",
                        "errors cannot be caught in compiled code; test the condition with `if` before the operation",
                    ),
                    "`try`/`except`",
                ));
                self.block(&t.body, false);
            }
            StmtKind::Assert { test, msg } => {
                self.expr(test, false);
                if let Some(m) = msg {
                    self.expr(m, true);
                }
            }
            StmtKind::Import(_) | StmtKind::ImportFrom { .. } => self.push(err(
                "imports inside functions are not supported",
                s.span,
                "import statement",
                "move the import to the top of the file",
            )),
            StmtKind::Global(names) => self.push(err(
                "`global` statements are not supported",
                s.span,
                "`global` declaration",
                &format!(
                    "pass `{}` as a parameter and return its new value",
                    names
                        .first()
                        .map(|n| n.name.as_str())
                        .unwrap_or("the value")
                ),
            )),
            StmtKind::Nonlocal(_) => self.push(err(
                "`nonlocal` statements are not supported",
                s.span,
                "`nonlocal` declaration",
                "pass the value as a parameter and return its new value",
            )),
            StmtKind::Del(_) => self.push(traceable(
                err(
                    "`del` statements are not supported",
                    s.span,
                    "`del` statement",
                    "remove it: values are freed automatically once they are no longer used",
                ),
                "`del`",
            )),
            StmtKind::Expr(e) => {
                // A bare string statement is a comment-like no-op (a docstring-style note).
                if !matches!(e.kind, ExprKind::Str(_)) {
                    self.expr(e, false);
                }
            }
            StmtKind::Pass | StmtKind::Break | StmtKind::Continue => {}
        }
    }

    /// Rejects the `else` block of a `for` or `while` loop (`keyword`), if it has one.
    fn loop_else(&mut self, keyword: &str, orelse: &[Stmt]) {
        if let Some(first) = orelse.first() {
            self.push(err(
                format!("`{keyword} ... else` is not supported"),
                else_span(self.src, first),
                &format!("`else` clause of a `{keyword}` loop"),
                "set a flag before `break` (e.g. `found = True`) and test it after the loop",
            ));
        }
    }

    fn target(&mut self, t: &Expr) {
        match &t.kind {
            ExprKind::Starred(_) => self.push(err(
                "starred assignment targets are not supported",
                t.span,
                "`*` target",
                "unpack a fixed number of values, or index the list",
            )),
            ExprKind::Tuple(items) | ExprKind::List(items) => {
                for i in items {
                    self.target(i);
                }
            }
            _ => self.expr(t, false),
        }
    }

    fn keywords(&mut self, kws: &[Keyword], msg: bool) {
        for k in kws {
            if k.arg.is_none() {
                self.push(err(
                    "keyword-argument unpacking `**` is not supported",
                    k.span,
                    "`**` argument",
                    "pass each keyword argument by name",
                ));
            }
            self.arg(&k.value, msg);
        }
    }

    /// A call argument: strings are allowed there (the lowering checks that the callee takes one).
    fn arg(&mut self, a: &Expr, msg: bool) {
        if matches!(a.kind, ExprKind::Str(_)) {
            return;
        }
        self.expr(a, msg);
    }

    /// `msg`: inside a `raise`/`assert` message or a `print` call, where strings and f-strings are
    /// allowed.
    fn expr(&mut self, e: &Expr, msg: bool) {
        crate::lower::with_stack(|| self.expr_inner(e, msg))
    }

    fn expr_inner(&mut self, e: &Expr, msg: bool) {
        match &e.kind {
            ExprKind::Name(_)
            | ExprKind::Int(_)
            | ExprKind::Float(_)
            | ExprKind::Bool(_)
            | ExprKind::None
            | ExprKind::Ellipsis => {}
            // `str` values: literals, f-strings (the lowering types them).
            ExprKind::Str(_) => {}
            ExprKind::FString(parts) => {
                for p in parts {
                    if let pyjit_syntax::ast::FStringPart::Expr(v) = p {
                        self.expr(&v.expr, false);
                    }
                }
            }
            ExprKind::Imag(_) => self.push(err(
                "complex numbers are not supported",
                e.span,
                "imaginary literal",
                "",
            )),
            ExprKind::Bytes(_) => self.push(err(
                "bytes literals are not supported",
                e.span,
                "bytes literal",
                "",
            )),
            ExprKind::Tuple(items) | ExprKind::List(items) => {
                for i in items {
                    self.expr(i, msg);
                }
            }
            ExprKind::Set(_) => self.push(err(
                "sets are not supported",
                e.span,
                "set display",
                "use a list (`[a, b]`) or a tuple",
            )),
            ExprKind::Dict(items) => {
                for (k, v) in items {
                    match k {
                        Some(k) => self.expr(k, msg),
                        None => self.push(err(
                            "`**` unpacking in a dict display is not supported",
                            v.span,
                            "`**` unpacking",
                            "add the entries one by one with `d[k] = v`",
                        )),
                    }
                    self.expr(v, msg);
                }
            }
            ExprKind::Starred(_) => self.push(err(
                "argument unpacking `*` is not supported",
                e.span,
                "`*` unpacking",
                "pass the values one by one",
            )),
            ExprKind::BinOp { left, right, .. } => {
                self.expr(left, msg);
                self.expr(right, msg);
            }
            ExprKind::UnaryOp { operand, .. } => self.expr(operand, msg),
            ExprKind::BoolOp { values, .. } => {
                for v in values {
                    self.expr(v, msg);
                }
            }
            ExprKind::Compare { left, ops } => {
                self.expr(left, msg);
                for (_, r) in ops {
                    self.expr(r, msg);
                }
            }
            ExprKind::IfExp { test, body, orelse } => {
                self.expr(test, false);
                self.expr(body, msg);
                self.expr(orelse, msg);
            }
            ExprKind::Call {
                func,
                args,
                keywords,
            } => {
                // `print(...)` and exception constructors take messages.
                let is_msg_call = msg
                    || matches!(&func.kind, ExprKind::Name(n) if n == "print");
                // `"... {}".format(x)` builds a message.
                let is_format = matches!(&func.kind, ExprKind::Attribute { value, attr }
                    if attr.name == "format" && matches!(value.kind, ExprKind::Str(_)));
                if !(is_format && is_msg_call) {
                    self.expr(func, false);
                }
                for a in args {
                    self.arg(a, is_msg_call);
                }
                self.keywords(keywords, is_msg_call);
            }
            ExprKind::Attribute { value, .. } => self.expr(value, false),
            ExprKind::Subscript { value, index } => {
                self.expr(value, false);
                self.expr(index, false);
            }
            ExprKind::Slice { lower, upper, step } => {
                for p in [lower, upper, step].into_iter().flatten() {
                    self.expr(p, false);
                }
            }
            ExprKind::Lambda { .. } => self.push(traceable(
                err(
                    "lambda expressions are not supported",
                    e.span,
                    "lambda",
                    "define a module-level function with `def` and call it by name",
                ),
                "lambdas",
            )),
            ExprKind::ListComp { elt, generators } => {
                self.expr(elt, false);
                for g in generators {
                    if g.is_async {
                        self.push(err(
                            "`async for` in a comprehension is not supported",
                            g.iter.span,
                            "async comprehension",
                            "",
                        ));
                    }
                    self.expr(&g.target, false);
                    self.expr(&g.iter, false);
                    for c in &g.ifs {
                        self.expr(c, false);
                    }
                }
            }
            ExprKind::SetComp { .. } => self.push(err(
                "set comprehensions are not supported",
                e.span,
                "set comprehension",
                "build a list with a `for` loop and `append` instead",
            )),
            ExprKind::DictComp { .. } => self.push(err(
                "dict comprehensions are not supported",
                e.span,
                "dict comprehension",
                "fill the dict in a `for` loop: `d: Dict[K, V] = {}` then `d[k] = v`",
            )),
            ExprKind::GeneratorExp { .. } => self.push(err(
                "generator expressions are not supported",
                e.span,
                "generator expression",
                "accumulate with a `for` loop instead (e.g. `total = 0`, then `for v in xs: total += v`)",
            )),
            ExprKind::NamedExpr { .. } => self.push(err(
                "assignment expressions (`:=`) are not supported",
                e.span,
                "walrus operator",
                "assign the value on its own line before this expression",
            )),
            ExprKind::Await(_) => self.push(err(
                "`await` is not supported",
                e.span,
                "`await` expression",
                "compiled functions are synchronous; call the function directly",
            )),
            ExprKind::Yield(_) | ExprKind::YieldFrom(_) => self.push(err(
                "`yield` (generator functions) is not supported",
                e.span,
                "`yield` expression",
                "collect the values in a list and return the list",
            )),
        }
    }
}

/// The `else` keyword of a loop's `else:` clause: the AST keeps only the clause's statements, so
/// search the source backwards from its first statement.
fn else_span(src: &str, first: &Stmt) -> Span {
    let before = src.get(..first.span.start as usize).unwrap_or("");
    match before.rfind("else") {
        Some(i) => Span::new(i, i + 4),
        None => first.span,
    }
}
