//! Statements: blocks with exit guards, assignments, `if`, loops, `return`/`break`/`continue`,
//! `raise`, `assert`, expression statements.

use super::{Binding, Flag, Lower, R, Val, ir_type};
use crate::analysis;
use crate::ty::{Ty, parse_annotation, parse_type_comment};
use pyjit_ir::{CmpOp, IntBinOp, Type, Value};
use pyjit_syntax::Diagnostic;
use pyjit_syntax::Span;
use pyjit_syntax::ast::{BinOp, Expr, ExprKind, For, Stmt, StmtKind};

/// What a `for` loop iterates over.
pub(crate) enum Iterable {
    Range {
        start: Value,
        stop: Value,
        step: Value,
        step_const: Option<i64>,
    },
    List(Value, Ty),
    Tensor(Value),
    Enumerate(Box<Iterable>, Value),
    Zip(Vec<Iterable>),
    /// `reversed(it)`: element `n - 1 - i` of `it` (`n` its trip count).
    Reversed(Box<Iterable>, Value),
    /// The elements of a tuple value: only a plain `for` can iterate them (unrolled).
    Unrolled(Vec<Val>),
}

/// One element of an iteration: a value, or a structure to unpack (enumerate/zip pairs).
pub(crate) enum Item {
    One(Val),
    Tup(Vec<Item>),
}

impl Lower<'_, '_, '_> {
    /// Lowers a statement list, guarding what follows a possible exit and dropping what follows a
    /// certain one.
    pub fn block(&mut self, stmts: &[Stmt]) -> R<()> {
        for (i, s) in stmts.iter().enumerate() {
            if self.st.unreachable {
                return Ok(());
            }
            self.set_span(s.span);
            match self.exit_status() {
                Flag::On => return Ok(()),
                Flag::Dyn(any) => {
                    let go = self.b.not(any);
                    let rest = &stmts[i..];
                    // The false path is only taken after an exit: a single pending flag is known set
                    // there, which lets `return` after a loop count as returning on every path.
                    let pending: Vec<usize> = [self.st.ret, self.st.brk, self.st.cont]
                        .iter()
                        .enumerate()
                        .filter(|(_, f)| matches!(f, Flag::Dyn(_)))
                        .map(|(i, _)| i)
                        .collect();
                    return self.lower_if(
                        go,
                        &mut |s| {
                            for &i in &pending {
                                super::set_flag(&mut s.st, i, Flag::Off);
                            }
                            s.block(rest)
                        },
                        &mut |s| {
                            if let [only] = pending.as_slice() {
                                super::set_flag(&mut s.st, *only, Flag::On);
                            }
                            Ok(())
                        },
                        ("path without an early exit", "path after an early exit"),
                    );
                }
                Flag::Off => {}
            }
            if let Err(d) = self.stmt(s) {
                // Report and go on: what the statement assigns is poisoned so that its uses do
                // not cascade into more errors.
                self.errors.push(d);
                let saved = self.b.insert_point();
                for n in analysis::assigned_names(std::slice::from_ref(s)) {
                    self.st.vars.insert(
                        n,
                        Binding::Undef {
                            ty: None,
                            reason: super::Undefined::Poisoned,
                        },
                    );
                }
                self.b.set_insert_point(saved);
                // A failed exit still exits, so what follows is judged as it would be.
                match &s.kind {
                    StmtKind::Return(_) => self.st.ret = Flag::On,
                    StmtKind::Raise { .. } => self.st.unreachable = true,
                    _ => {}
                }
            }
        }
        Ok(())
    }

    pub(crate) fn stmt(&mut self, s: &Stmt) -> R<()> {
        super::with_stack(|| self.stmt_inner(s))
    }

    fn stmt_inner(&mut self, s: &Stmt) -> R<()> {
        self.set_span(s.span);
        match &s.kind {
            StmtKind::Pass => Ok(()),
            StmtKind::Expr(e) => {
                if matches!(e.kind, ExprKind::Str(_)) {
                    return Ok(());
                }
                self.expr(e)?;
                Ok(())
            }
            StmtKind::Return(v) => self.stmt_return(v.as_ref(), s.span),
            StmtKind::Break | StmtKind::Continue => {
                let is_break = matches!(s.kind, StmtKind::Break);
                if self.loop_depth == 0 {
                    let kw = if is_break { "break" } else { "continue" };
                    return Err(Diagnostic::error(format!("`{kw}` outside a loop"))
                        .with_primary(s.span, format!("`{kw}` must be inside `for` or `while`"))
                        .with_help("use `return` to leave the function early"));
                }
                if is_break {
                    self.st.brk = Flag::On;
                } else {
                    self.st.cont = Flag::On;
                }
                Ok(())
            }
            StmtKind::Assign {
                targets,
                value,
                type_comment,
            } => {
                let declared = match type_comment {
                    Some(tc) => Some(parse_type_comment(&tc.text, tc.span, &self.m.info.imports)?),
                    None => None,
                };
                self.stmt_assign(targets, value, declared)
            }
            StmtKind::AnnAssign {
                target,
                annotation,
                value,
            } => {
                let ty = parse_annotation(annotation, &self.m.info.imports)?;
                let ExprKind::Name(name) = &target.kind else {
                    return Err(Diagnostic::error("annotated assignment needs a plain name")
                        .with_primary(target.span, "not a variable name")
                        .with_help("annotate a variable: `x: int = 0`"));
                };
                match value {
                    Some(v) => {
                        let val = self.expr_hint(v, Some(&ty))?;
                        self.assign_name(name, target.span, val, Some(&ty), v.span)
                    }
                    None => {
                        self.st.vars.insert(
                            name.clone(),
                            Binding::Undef {
                                ty: Some(ty),
                                reason: super::Undefined::Because(format!(
                                    "`{name}` is declared but never assigned"
                                )),
                            },
                        );
                        Ok(())
                    }
                }
            }
            StmtKind::AugAssign { target, op, value } => {
                self.stmt_aug_assign(target, *op, value, s.span)
            }
            StmtKind::If { test, body, orelse } => self.stmt_if(test, body, orelse),
            StmtKind::While { test, body, .. } => self.stmt_while(test, body, s.span),
            StmtKind::For(For {
                target, iter, body, ..
            }) => self.stmt_for(target, iter, body, s.span),
            StmtKind::Raise { exc, .. } => self.stmt_raise(exc.as_ref(), s.span),
            StmtKind::Assert { test, msg } => self.stmt_assert(test, msg.as_ref()),
            // `with torch.no_grad():` (the checker accepts no other): the body as is.
            StmtKind::With { body, .. } => self.block(body),
            // Everything else was rejected by the checker before lowering.
            _ => Err(Diagnostic::error("unsupported statement")
                .with_primary(s.span, "not part of the language")),
        }
    }

    fn stmt_return(&mut self, v: Option<&Expr>, span: Span) -> R<()> {
        let hint = self.ret_ty.clone();
        let val = match v {
            Some(e) => self.expr_hint(e, hint.as_ref())?,
            None => {
                let n = self.b.const_none();
                Val { v: n, ty: Ty::None }
            }
        };
        self.set_span(span);
        match self.ret_ty.clone() {
            None => {
                self.m.note_return(self.idx, &val.ty);
                self.returns_seen.push((val.ty, span));
            }
            Some(rt) => {
                let at = v.map(|e| e.span).unwrap_or(span);
                let got_ty = val.ty.clone();
                let cv = self
                    .coerce(val, &rt, at, |got, want| {
                        format!("return value has type `{got}`, but the function returns `{want}`")
                    })
                    .map_err(|d| {
                        d.with_help(format!(
                            "return a `{rt}`, or change the return annotation to `-> {got_ty}`"
                        ))
                    })?;
                self.st.retv = Some(cv);
            }
        }
        self.st.ret = Flag::On;
        self.return_spans.push(span);
        Ok(())
    }

    // ---- assignment ----

    fn stmt_assign(&mut self, targets: &[Expr], value: &Expr, declared: Option<Ty>) -> R<()> {
        // `a, b = x, y`: evaluate every right-hand value first, then bind, without a tuple.
        if let [t] = targets
            && let (ExprKind::Tuple(ts) | ExprKind::List(ts), ExprKind::Tuple(vs)) =
                (&t.kind, &value.kind)
            && ts.len() == vs.len()
            && declared.is_none()
        {
            let vals = vs.iter().map(|v| self.expr(v)).collect::<R<Vec<_>>>()?;
            for ((t, v), e) in ts.iter().zip(vals).zip(vs) {
                self.assign_target(t, v, e.span)?;
            }
            return Ok(());
        }
        let hint = declared.clone().or_else(|| match targets {
            [t] => self.target_type(t),
            _ => None,
        });
        let val = self.expr_hint(value, hint.as_ref())?;
        for t in targets {
            if let (Some(d), ExprKind::Name(n)) = (&declared, &t.kind) {
                self.assign_name(n, t.span, val.clone(), Some(d), value.span)?;
            } else {
                self.assign_target(t, val.clone(), value.span)?;
            }
        }
        Ok(())
    }

    /// The declared type of an assignment target that is an existing variable (so `x = []` after
    /// `x: List[int] = ...` knows its element type).
    fn target_type(&self, t: &Expr) -> Option<Ty> {
        match &t.kind {
            ExprKind::Name(n) => match self.st.vars.get(n) {
                Some(Binding::Val { ty, .. }) => Some(ty.clone()),
                Some(Binding::Undef { ty, .. }) => ty.clone(),
                None => None,
            },
            _ => None,
        }
    }

    pub(crate) fn assign_target(&mut self, t: &Expr, val: Val, vspan: Span) -> R<()> {
        match &t.kind {
            ExprKind::Name(n) => self.assign_name(n, t.span, val, None, vspan),
            ExprKind::Tuple(items) | ExprKind::List(items) if matches!(val.ty, Ty::List(_)) => {
                // `a, b = t.chunk(2)`: Python checks the length at run time.
                let elem = match &val.ty {
                    Ty::List(e) => (**e).clone(),
                    other => {
                        return Err(Diagnostic::error(format!("cannot unpack a `{other}`"))
                            .with_primary(vspan, "not a list"));
                    }
                };
                let n = self.b.list_len(val.v);
                let want = self.b.const_int(items.len() as i64);
                let ok = self.b.int_cmp(CmpOp::Eq, n, want);
                let msg = self.b.const_str(format!(
                    "cannot unpack a list into {} values: wrong number of elements",
                    items.len()
                ));
                self.b.check("ValueError", ok, msg);
                for (i, item) in items.iter().enumerate() {
                    let iv = self.b.const_int(i as i64);
                    let v = self.b.list_get(val.v, iv);
                    self.assign_target(
                        item,
                        Val {
                            v,
                            ty: elem.clone(),
                        },
                        vspan,
                    )?;
                }
                Ok(())
            }
            ExprKind::Tuple(items) | ExprKind::List(items) => {
                let Ty::Tuple(ts) = &val.ty else {
                    return Err(Diagnostic::error(format!(
                        "cannot unpack a value of type `{}`",
                        val.ty
                    ))
                    .with_primary(vspan, format!("this is `{}`, not a tuple", val.ty))
                    .with_help("only tuples can be unpacked; index lists and tensors instead"));
                };
                if ts.len() != items.len() {
                    return Err(Diagnostic::error(format!(
                        "cannot unpack a tuple of {} values into {} targets",
                        ts.len(),
                        items.len()
                    ))
                    .with_primary(t.span, format!("{} targets", items.len()))
                    .with_secondary(vspan, format!("`{}`", val.ty))
                    .with_help(format!("unpack into exactly {} targets", ts.len())));
                }
                let ts = ts.clone();
                for (i, (item, ty)) in items.iter().zip(ts).enumerate() {
                    let v = self.b.tuple_get(val.v, i as u32);
                    self.assign_target(item, Val { v, ty }, vspan)?;
                }
                Ok(())
            }
            ExprKind::Subscript { value, index } => {
                self.assign_subscript(value, index, val, vspan, t.span)
            }
            ExprKind::Attribute { attr, .. } => Err(Diagnostic::error(format!(
                "assignment to attribute `{}` is not supported",
                attr.name
            ))
            .with_primary(t.span, "attribute assignment")
            .with_help("use a local variable")),
            _ => Err(Diagnostic::error("invalid assignment target")
                .with_primary(t.span, "cannot assign to this")),
        }
    }

    /// Binds `name`, enforcing one static type per variable.
    pub(crate) fn assign_name(
        &mut self,
        name: &str,
        span: Span,
        val: Val,
        declared: Option<&Ty>,
        vspan: Span,
    ) -> R<()> {
        let existing = match self.st.vars.get(name) {
            Some(Binding::Val { ty, .. }) => Some(ty.clone()),
            Some(Binding::Undef { ty, .. }) => ty.clone(),
            None => None,
        };
        if let (Some(d), Some(e)) = (declared, &existing)
            && d != e
            && matches!(self.st.vars.get(name), Some(Binding::Val { .. }))
        {
            return Err(Diagnostic::error(format!(
                "variable `{name}` is annotated `{d}` but already has type `{e}`"
            ))
            .with_primary(span, "conflicting annotation")
            .with_help("use a new variable name for a value of another type"));
        }
        // TorchScript lets straight-line code re-bind a variable to a value of another type
        // (`c = 3`, later `c = a + b`); a control-flow join that needs one type reports it.
        // (Not inside a loop: the loop carries the variable with one type.)
        let rebind = declared.is_none()
            && self.loop_depth == 0
            && matches!(self.st.vars.get(name), Some(Binding::Val { .. }))
            && existing.as_ref().is_some_and(|t| {
                *t != val.ty && !val.ty.is_subtype_of(t) && self.try_coerce(&val, t).is_none()
            });
        let target = if rebind {
            None
        } else {
            declared.cloned().or(existing)
        };
        let (v, ty, refined) = match target {
            None => (val.v, val.ty.clone(), false),
            Some(t) => {
                let non_none = !matches!(val.ty, Ty::None | Ty::Optional(_));
                let name_s = name.to_string();
                let got = val.ty.clone();
                let param_help = self.unannotated.contains_key(name) && t == Ty::Tensor;
                let v = self
                    .coerce(val, &t, vspan, |got, want| {
                        format!(
                            "variable `{name_s}` has type `{want}` but is assigned a value of type `{got}`"
                        )
                    })
                    .map_err(|d| {
                        if param_help {
                            d.with_help(format!(
                                "parameter `{name_s}` has no annotation, so it is a Tensor; annotate it as `{got}`?"
                            ))
                        } else if t == Ty::None {
                            d.with_help(format!(
                                "declare it as optional where it is first assigned: `{name_s}: Optional[{got}] = None`"
                            ))
                        } else {
                            d.with_help(format!(
                                "a variable keeps one type; use a new name for the `{got}` value"
                            ))
                        }
                    })?;
                let refined = matches!(t, Ty::Optional(_)) && non_none;
                (v, t, refined)
            }
        };
        if let Some(u) = self.unannotated.get(name)
            && *u != v
        {
            self.unannotated.remove(name);
        }
        self.st
            .vars
            .insert(name.to_string(), Binding::Val { v, ty, refined });
        Ok(())
    }

    fn stmt_aug_assign(&mut self, target: &Expr, op: BinOp, value: &Expr, span: Span) -> R<()> {
        match &target.kind {
            ExprKind::Name(n) => {
                let cur = self.read_name(n, target.span)?;
                if let (Ty::List(_), BinOp::Add) = (&cur.ty, op) {
                    // `xs += [x]` extends the list in place (aliases see it), as in Python.
                    let rhs = self.expr_hint(value, Some(&cur.ty))?;
                    if rhs.ty != cur.ty {
                        return Err(Diagnostic::error(format!(
                            "cannot extend a `{}` with a `{}`",
                            cur.ty, rhs.ty
                        ))
                        .with_primary(value.span, format!("`{}`", rhs.ty)));
                    }
                    self.set_span(span);
                    self.append_all(cur.v, rhs.v);
                    return Ok(());
                }
                let rhs = self.expr(value)?;
                if cur.ty == Ty::Tensor {
                    let r = self.tensor_inplace(op, cur, rhs, span)?;
                    // The in-place op returns the same tensor: rebinding keeps the aliases right.
                    self.st.vars.insert(
                        n.clone(),
                        Binding::Val {
                            v: r.v,
                            ty: Ty::Tensor,
                            refined: false,
                        },
                    );
                    return Ok(());
                }
                if let Ty::List(_) = cur.ty {
                    return Err(Diagnostic::error(format!(
                        "augmented assignment `{}=` on a list is not supported",
                        op.symbol()
                    ))
                    .with_primary(span, "list operand")
                    .with_help("`+=` extends a list; for other operators use a loop"));
                }
                let r = self.binop(op, cur, rhs, span)?;
                self.set_span(span);
                self.assign_name(n, target.span, r, None, span)
            }
            ExprKind::Subscript { value: base, index } => {
                let b = self.expr(base)?;
                match b.ty {
                    Ty::Tensor => {
                        // Python: getitem, in-place op, setitem. The setitem (`index_put_`)
                        // matters when the subscript copies (masks, index tensors).
                        let (view, idx) = self.tensor_index_keep(b.clone(), index, target.span)?;
                        let rhs = self.expr(value)?;
                        let r = self.tensor_inplace(op, view, rhs, span)?;
                        self.tensor_put(b, idx, r, span)
                    }
                    Ty::Dict(ref kt, ref vt) => {
                        let (kt, vt) = ((**kt).clone(), (**vt).clone());
                        let k = self.dict_key(&kt, index)?;
                        self.set_span(span);
                        let cur =
                            self.b
                                .insert1(pyjit_ir::OpKind::DictGet, &[b.v, k], ir_type(&vt));
                        let r = self.aug_element(op, cur, &vt, value, span, "dict value")?;
                        self.set_span(span);
                        self.b
                            .insert(pyjit_ir::OpKind::DictSet, &[b.v, k, r], &[], &[]);
                        Ok(())
                    }
                    Ty::List(ref elem) => {
                        let elem = (**elem).clone();
                        let i = self.expr(index)?;
                        let i = self.expect_int(i, index, "list index")?;
                        let cur = self.b.list_get(b.v, i);
                        let r = self.aug_element(op, cur, &elem, value, span, "list element")?;
                        self.b.list_set(b.v, i, r);
                        Ok(())
                    }
                    other => Err(Diagnostic::error(format!(
                        "cannot assign into a value of type `{other}`"
                    ))
                    .with_primary(base.span, format!("`{other}`"))),
                }
            }
            _ => Err(Diagnostic::error("invalid augmented assignment target")
                .with_primary(target.span, "cannot assign to this")),
        }
    }

    /// `cur OP= value` for an element of type `elem` of a container (`what`: "dict value",
    /// "list element"): a tensor element is updated in place (`xs[i] += t` calls `__iadd__`, so
    /// other references to it see the change), another gets the binop; the result, coerced to
    /// `elem`, is what goes back into the container.
    fn aug_element(
        &mut self,
        op: BinOp,
        cur: Value,
        elem: &Ty,
        value: &Expr,
        span: Span,
        what: &str,
    ) -> R<Value> {
        let rhs = self.expr(value)?;
        let cur = Val {
            v: cur,
            ty: elem.clone(),
        };
        let r = self.tensor_inplace(op, cur, rhs, span)?;
        self.coerce(r, elem, span, |got, want| {
            format!("{what} has type `{want}`, but the result is `{got}`")
        })
    }

    fn assign_subscript(
        &mut self,
        base: &Expr,
        index: &Expr,
        val: Val,
        vspan: Span,
        span: Span,
    ) -> R<()> {
        let b = self.expr(base)?;
        match &b.ty {
            Ty::Tensor => self.tensor_setitem(b, index, val, vspan, span),
            Ty::Dict(kt, vt) => {
                let (kt, vt) = ((**kt).clone(), (**vt).clone());
                let k = self.dict_key(&kt, index)?;
                let v = self.coerce(val, &vt, vspan, |got, want| {
                    format!("cannot store a `{got}` into a dict of `{want}`")
                })?;
                self.set_span(span);
                self.b
                    .insert(pyjit_ir::OpKind::DictSet, &[b.v, k, v], &[], &[]);
                Ok(())
            }
            Ty::List(elem) => {
                let elem = (**elem).clone();
                let i = self.expr(index)?;
                let i = self.expect_int(i, index, "list index")?;
                let v = self.coerce(val, &elem, vspan, |got, want| {
                    format!("cannot store a `{got}` into a `List[{want}]`")
                })?;
                self.set_span(span);
                self.b.list_set(b.v, i, v);
                Ok(())
            }
            Ty::Tuple(_) => Err(Diagnostic::error("tuples are immutable")
                .with_primary(span, "assignment into a tuple")
                .with_help("build a new tuple, or use a `List`")),
            other => Err(Diagnostic::error(format!(
                "cannot assign into a value of type `{other}`"
            ))
            .with_primary(base.span, format!("`{other}`"))),
        }
    }

    // ---- if ----

    /// The value of a condition TorchScript decides while compiling (and so skips the dead
    /// branch, which may hold code that would not compile): `isinstance` of a value whose static
    /// type decides it, `torch.jit.is_scripting()` (true), `torch.jit.is_tracing()` (false), and
    /// `not`/`and`/`or` of those.
    pub(crate) fn static_condition(&mut self, e: &Expr) -> R<Option<bool>> {
        use pyjit_syntax::ast::{BoolOp, UnaryOp};
        match &e.kind {
            ExprKind::UnaryOp {
                op: UnaryOp::Not,
                operand,
            } => Ok(self.static_condition(operand)?.map(|b| !b)),
            ExprKind::BoolOp { op, values } => {
                let mut all = Vec::new();
                for v in values {
                    match self.static_condition(v)? {
                        Some(b) => all.push(b),
                        None => return Ok(None),
                    }
                }
                Ok(Some(match op {
                    BoolOp::And => all.iter().all(|b| *b),
                    BoolOp::Or => all.iter().any(|b| *b),
                }))
            }
            ExprKind::Call {
                func,
                args,
                keywords,
            } if keywords.is_empty() => {
                let Some(dotted) = func.dotted_name() else {
                    return Ok(None);
                };
                if dotted == "isinstance"
                    && args.len() == 2
                    && !self.st.vars.contains_key("isinstance")
                {
                    let v = self.expr(e)?;
                    return Ok(self.const_bool_of(v.v));
                }
                let first = dotted.split('.').next().unwrap_or("");
                if self.st.vars.contains_key(first) || !args.is_empty() {
                    return Ok(None);
                }
                Ok(match self.m.info.imports.canonical(&dotted).as_deref() {
                    Some("torch.jit.is_scripting") => Some(true),
                    Some("torch.jit.is_tracing") => Some(false),
                    _ => None,
                })
            }
            _ => Ok(None),
        }
    }

    fn const_bool_of(&self, v: pyjit_ir::Value) -> Option<bool> {
        let op = self.b.func.defining_op(v)?;
        match &self.b.func.op(op).kind {
            pyjit_ir::OpKind::Const(pyjit_ir::Const::Bool(b)) => Some(*b),
            _ => None,
        }
    }

    fn stmt_if(&mut self, test: &Expr, body: &[Stmt], orelse: &[Stmt]) -> R<()> {
        if let Some(live) = self.static_condition(test)? {
            return self.block(if live { body } else { orelse });
        }
        let c = self.cond(test)?;
        self.set_span(test.span);
        // `if x is None: return ...` refines `x` after the `if` when the branch always exits.
        let mut then_exits = false;
        let mut else_exits = false;
        let (rt, rf) = (c.if_true.clone(), c.if_false.clone());
        self.lower_if(
            c.v,
            &mut |s| {
                s.refine(&rt);
                s.block(body)?;
                then_exits = s.st.unreachable || s.exit_status_static() == Flag::On;
                Ok(())
            },
            &mut |s| {
                s.refine(&rf);
                s.block(orelse)?;
                else_exits = s.st.unreachable || s.exit_status_static() == Flag::On;
                Ok(())
            },
            ("true branch", "false branch"),
        )?;
        if then_exits {
            self.refine(&c.if_false);
        }
        if else_exits {
            self.refine(&c.if_true);
        }
        Ok(())
    }

    /// The exit status without emitting anything (`Dyn` carries a dummy value).
    pub(crate) fn exit_status_static(&self) -> Flag {
        let flags = [self.st.ret, self.st.brk, self.st.cont];
        if flags.contains(&Flag::On) {
            Flag::On
        } else {
            Flag::Off
        }
    }

    /// Marks `Optional` variables as known to hold a value.
    pub fn refine(&mut self, names: &[String]) {
        for n in names {
            if let Some(Binding::Val {
                ty: Ty::Optional(_),
                refined,
                ..
            }) = self.st.vars.get_mut(n)
            {
                *refined = true;
            }
        }
    }

    // ---- loops ----

    /// Emits a `loop` op. `assigned` are the names the body assigns; those defined before the loop
    /// are carried. `body` lowers the body given the iteration counter; `next_cond` computes the
    /// condition to continue (`None`: always, as for `for`).
    #[allow(clippy::too_many_arguments, clippy::type_complexity)]
    pub fn lower_loop(
        &mut self,
        max_trip: Value,
        init_cond: Value,
        assigned: &[String],
        has_return: bool,
        body: &mut dyn FnMut(&mut Self, Value) -> R<()>,
        next_cond: Option<&mut dyn FnMut(&mut Self) -> R<Value>>,
        span: Span,
    ) -> R<()> {
        let mut carried: Vec<(String, Ty, bool)> = Vec::new();
        let mut inits = Vec::new();
        let mut types = vec![Type::Int];
        for n in assigned {
            if let Some(Binding::Val { v, ty, refined }) = self.st.vars.get(n) {
                carried.push((n.clone(), ty.clone(), *refined));
                inits.push(*v);
                types.push(ir_type(ty));
            }
        }
        let carry_ret = has_return;
        let mut ret_slot = None;
        let mut retv_slot = None;
        if carry_ret {
            ret_slot = Some(inits.len());
            let f = self.flag_value(self.st.ret);
            inits.push(f);
            types.push(Type::Bool);
            if let Some(rt) = self.ret_ty.clone() {
                retv_slot = Some(inits.len());
                let v = match self.st.retv {
                    Some(v) => v,
                    None => self.b.undef(ir_type(&rt)),
                };
                inits.push(v);
                types.push(ir_type(&rt));
            }
        }
        let outer_point = self.b.insert_point();
        let before = self.st.clone();
        let body_r = self.b.new_region(&types);
        let params = self.b.func.region_params(body_r).to_vec();
        self.b.position_at_end(body_r);
        for (k, (n, ty, _)) in carried.iter().enumerate() {
            // A refinement does not survive into the loop: the body may assign `None`.
            self.st.vars.insert(
                n.clone(),
                Binding::Val {
                    v: params[k + 1],
                    ty: ty.clone(),
                    refined: false,
                },
            );
        }
        if ret_slot.is_some() {
            // An iteration only starts while no `return` happened (the continuation condition
            // includes the flag), and statements only run where no flag is set.
            self.st.ret = Flag::Off;
        }
        if let Some(k) = retv_slot {
            self.st.retv = Some(params[k + 1]);
        }
        self.st.brk = Flag::Off;
        self.st.cont = Flag::Off;
        self.loop_depth += 1;
        let r = body(self, params[0]);
        self.loop_depth -= 1;
        r?;
        let body_state = self.st.clone();
        if self.st.unreachable {
            let mut tys = vec![Type::Bool];
            tys.extend(types[1..].iter().cloned());
            self.seal_unreachable(body_r, &tys);
        } else {
            self.set_span(span);
            // Continue unless a `break` or `return` happened; `continue` only ends this iteration.
            let saved_cont = self.st.cont;
            self.st.cont = Flag::Off;
            let exit = self.exit_status();
            self.st.cont = saved_cont;
            let cond = match (exit, next_cond) {
                (Flag::On, _) => self.b.const_bool(false),
                (Flag::Off, None) => self.b.const_bool(true),
                (Flag::Off, Some(f)) => f(self)?,
                (Flag::Dyn(e), None) => self.b.not(e),
                (Flag::Dyn(e), Some(f)) => {
                    let go = self.b.not(e);
                    let then_r = self.b.new_region(&[]);
                    let saved = self.b.position_at_end(then_r);
                    let c = f(self)?;
                    self.b.yield_(&[c]);
                    let else_r = self.b.new_region(&[]);
                    self.b.position_at_end(else_r);
                    let fls = self.b.const_bool(false);
                    self.b.yield_(&[fls]);
                    self.b.set_insert_point(saved);
                    let op = self.b.if_(go, then_r, else_r, &[Type::Bool]);
                    self.b.result(op)
                }
            };
            let mut ys = vec![cond];
            for (n, ty, _) in &carried {
                match self.st.vars.get(n) {
                    Some(Binding::Val { v, .. }) => ys.push(*v),
                    Some(Binding::Undef {
                        reason: super::Undefined::Poisoned,
                        ..
                    }) => {
                        return Err(Diagnostic::reported_elsewhere());
                    }
                    _ => {
                        return Err(Diagnostic::error(format!(
                            "`{n}` is not defined at the end of the loop body"
                        ))
                        .with_primary(
                            span,
                            format!("`{n}` ({ty}) must be defined on every path through the body"),
                        ));
                    }
                }
            }
            if ret_slot.is_some() {
                let f = self.flag_value(self.st.ret);
                ys.push(f);
            }
            if retv_slot.is_some() {
                let v = match self.st.retv {
                    Some(v) => v,
                    None => self.b.undef(types[types.len() - 1].clone()),
                };
                ys.push(v);
            }
            self.b.yield_(&ys);
        }
        self.b.set_insert_point(outer_point);
        self.set_span(span);
        let op = self.b.loop_(max_trip, init_cond, &inits, body_r);
        let results = self.b.results(op);
        let mut after = before;
        for (k, (n, ty, _)) in carried.iter().enumerate() {
            after.vars.insert(
                n.clone(),
                Binding::Val {
                    v: results[k],
                    ty: ty.clone(),
                    refined: false,
                },
            );
        }
        for n in assigned {
            if !after.vars.contains_key(n)
                && let Some(Binding::Val { ty, .. }) = body_state.vars.get(n)
            {
                after.vars.insert(
                    n.clone(),
                    Binding::Undef {
                        ty: Some(ty.clone()),
                        reason: super::Undefined::Because(format!(
                            "`{n}` is only assigned inside the loop, which may run zero times"
                        )),
                    },
                );
            }
        }
        if let Some(k) = ret_slot {
            after.ret = Flag::Dyn(results[k]);
        }
        if let Some(k) = retv_slot {
            after.retv = Some(results[k]);
        }
        self.st = after;
        Ok(())
    }

    fn stmt_while(&mut self, test: &Expr, body: &[Stmt], span: Span) -> R<()> {
        let assigned = analysis::assigned_names(body);
        let has_return = analysis::contains_return(body);
        let infinite = analysis::is_true_literal(test);
        let c0 = self.cond(test)?;
        self.set_span(span);
        let max = self.b.const_int(i64::MAX);
        let rt = c0.if_true.clone();
        self.lower_loop(
            max,
            c0.v,
            &assigned,
            has_return,
            &mut |s, _i| {
                s.refine(&rt);
                s.block(body)
            },
            Some(&mut |s| Ok(s.cond(test)?.v)),
            span,
        )?;
        if infinite && !analysis::contains_loop_exit(body, true) {
            // `while True:` without `break` ends only by `return` (or an error).
            if has_return {
                self.st.ret = Flag::On;
            } else {
                self.st.unreachable = true;
                self.emit_unreachable_end();
            }
        }
        Ok(())
    }

    /// Ends a region that control never leaves normally (after an endless loop).
    fn emit_unreachable_end(&mut self) {
        let msg = self.b.const_str("unreachable: endless loop ended");
        self.b.raise("RuntimeError", msg);
    }

    fn stmt_for(&mut self, target: &Expr, iter: &Expr, body: &[Stmt], span: Span) -> R<()> {
        // Iterating over a tuple is unrolled: each element may have its own type.
        if let Some(elems) = self.tuple_elements(iter)? {
            return self.unrolled_for(target, &elems, body);
        }
        let it = self.iterable(iter)?;
        if let Iterable::Unrolled(elems) = it {
            return self.unrolled_for(target, &elems, body);
        }
        self.set_span(span);
        let trip = self.trip_count(&it, iter.span)?;
        let t = self.b.const_bool(true);
        let mut assigned = analysis::assigned_names(body);
        let mut tnames = Vec::new();
        collect_target_names(target, &mut tnames);
        for n in tnames {
            if !assigned.contains(&n) {
                assigned.push(n);
            }
        }
        let has_return = analysis::contains_return(body);
        let tspan = target.span;
        self.lower_loop(
            trip,
            t,
            &assigned,
            has_return,
            &mut |s, i| {
                s.set_span(tspan);
                let item = s.element(&it, i)?;
                s.bind_item(target, item, tspan)?;
                s.block(body)
            },
            None,
            span,
        )
    }

    fn unrolled_for(&mut self, target: &Expr, elems: &[Val], body: &[Stmt]) -> R<()> {
        let outer_brk = self.st.brk;
        let outer_cont = self.st.cont;
        self.st.brk = Flag::Off;
        self.loop_depth += 1;
        let r = self.unroll_from(target, elems, body);
        self.loop_depth -= 1;
        r?;
        self.st.brk = outer_brk;
        self.st.cont = outer_cont;
        Ok(())
    }

    fn unroll_from(&mut self, target: &Expr, elems: &[Val], body: &[Stmt]) -> R<()> {
        let Some((first, rest)) = elems.split_first() else {
            return Ok(());
        };
        self.st.cont = Flag::Off;
        self.assign_target(target, first.clone(), target.span)?;
        self.block(body)?;
        self.st.cont = Flag::Off;
        if self.st.unreachable || rest.is_empty() {
            return Ok(());
        }
        match self.exit_status() {
            Flag::On => Ok(()),
            Flag::Off => self.unroll_from(target, rest, body),
            Flag::Dyn(any) => {
                let go = self.b.not(any);
                self.lower_if(
                    go,
                    &mut |s| {
                        s.st.brk = Flag::Off;
                        if s.st.ret != Flag::On {
                            s.st.ret = match s.st.ret {
                                Flag::Dyn(_) => Flag::Off,
                                f => f,
                            };
                        }
                        s.unroll_from(target, rest, body)
                    },
                    &mut |_| Ok(()),
                    ("path without an early exit", "path after an early exit"),
                )
            }
        }
    }

    /// The trip count of an iteration.
    fn trip_count(&mut self, it: &Iterable, span: Span) -> R<Value> {
        Ok(match it {
            Iterable::Range {
                start,
                stop,
                step,
                step_const,
            } => {
                match step_const {
                    Some(0) => {
                        return Err(Diagnostic::error("`range()` step must not be zero")
                            .with_primary(span, "step is 0"));
                    }
                    // A negative trip count runs zero iterations, so no clamping is needed.
                    Some(1) => {
                        if self.const_int_of(*start) == Some(0) {
                            *stop
                        } else {
                            self.b.int_bin(IntBinOp::Sub, *stop, *start)
                        }
                    }
                    Some(k) if *k > 0 => {
                        // ceil((stop - start) / step) = (stop - start + step - 1) // step
                        let d = self.b.int_bin(IntBinOp::Sub, *stop, *start);
                        let km1 = self.b.const_int(k - 1);
                        let n = self.b.int_bin(IntBinOp::Add, d, km1);
                        self.b.int_bin(IntBinOp::FloorDiv, n, *step)
                    }
                    Some(k) => {
                        // (start - stop + (-step) - 1) // (-step)
                        let d = self.b.int_bin(IntBinOp::Sub, *start, *stop);
                        let km1 = self.b.const_int(-k - 1);
                        let n = self.b.int_bin(IntBinOp::Add, d, km1);
                        let neg = self.b.const_int(-k);
                        self.b.int_bin(IntBinOp::FloorDiv, n, neg)
                    }
                    None => {
                        // Python's len(range): step > 0: (stop - start + step - 1) // step;
                        // step < 0: (start - stop - step - 1) // (-step).
                        let zero = self.b.const_int(0);
                        let ok = self.b.int_cmp(CmpOp::Ne, *step, zero);
                        let msg = self.b.const_str("range() arg 3 must not be zero");
                        self.b.check("ValueError", ok, msg);
                        let one = self.b.const_int(1);
                        let pos = self.b.int_cmp(CmpOp::Gt, *step, zero);
                        let d1 = self.b.int_bin(IntBinOp::Sub, *stop, *start);
                        let d2 = self.b.int_bin(IntBinOp::Sub, *start, *stop);
                        let d = self.b.select(pos, d1, d2);
                        let negstep = self.b.int_un(pyjit_ir::IntUnOp::Neg, *step);
                        let mag = self.b.select(pos, *step, negstep);
                        let n = self.b.int_bin(IntBinOp::Add, d, mag);
                        let n = self.b.int_bin(IntBinOp::Sub, n, one);
                        self.b.int_bin(IntBinOp::FloorDiv, n, mag)
                    }
                }
            }
            Iterable::List(l, _) => self.b.list_len(*l),
            Iterable::Tensor(t) => self.tensor_len(*t)?,
            Iterable::Enumerate(inner, _) => self.trip_count(inner, span)?,
            Iterable::Reversed(_, n) => *n,
            Iterable::Unrolled(_) => return Err(tuple_in_combinator(span)),
            Iterable::Zip(its) => {
                let mut acc: Option<Value> = None;
                for i in its {
                    let n = self.trip_count(i, span)?;
                    acc = Some(match acc {
                        None => n,
                        Some(a) => {
                            let lt = self.b.int_cmp(CmpOp::Lt, a, n);
                            self.b.select(lt, a, n)
                        }
                    });
                }
                match acc {
                    Some(a) => a,
                    None => self.b.const_int(0),
                }
            }
        })
    }

    /// The `i`-th element of an iteration.
    fn element(&mut self, it: &Iterable, i: Value) -> R<Item> {
        Ok(match it {
            Iterable::Range {
                start,
                step,
                step_const,
                ..
            } => {
                let v = match step_const {
                    Some(1) => self.b.int_bin(IntBinOp::Add, *start, i),
                    _ => {
                        let m = self.b.int_bin(IntBinOp::Mul, i, *step);
                        self.b.int_bin(IntBinOp::Add, *start, m)
                    }
                };
                Item::One(Val { v, ty: Ty::Int })
            }
            Iterable::List(l, elem) => {
                let v = self.b.list_get(*l, i);
                Item::One(Val {
                    v,
                    ty: elem.clone(),
                })
            }
            Iterable::Tensor(t) => {
                let v = self.tensor_row(*t, i)?;
                Item::One(Val { v, ty: Ty::Tensor })
            }
            Iterable::Enumerate(inner, start) => {
                let n = self.b.int_bin(IntBinOp::Add, *start, i);
                let e = self.element(inner, i)?;
                Item::Tup(vec![Item::One(Val { v: n, ty: Ty::Int }), e])
            }
            Iterable::Reversed(inner, n) => {
                let one = self.b.const_int(1);
                let last = self.b.int_bin(IntBinOp::Sub, *n, one);
                let j = self.b.int_bin(IntBinOp::Sub, last, i);
                self.element(inner, j)?
            }
            Iterable::Unrolled(_) => return Err(tuple_in_combinator(self.b.span())),
            Iterable::Zip(its) => {
                let mut items = Vec::new();
                for it in its {
                    items.push(self.element(it, i)?);
                }
                Item::Tup(items)
            }
        })
    }

    fn bind_item(&mut self, target: &Expr, item: Item, span: Span) -> R<()> {
        match item {
            Item::One(v) => self.assign_target(target, v, span),
            Item::Tup(items) => {
                let (ExprKind::Tuple(ts) | ExprKind::List(ts)) = &target.kind else {
                    // `for pair in zip(a, b)`: build the tuple.
                    let vals = items
                        .into_iter()
                        .map(|it| self.item_value(it))
                        .collect::<Vec<_>>();
                    let ty = Ty::Tuple(vals.iter().map(|v| v.ty.clone()).collect());
                    let vs: Vec<Value> = vals.iter().map(|v| v.v).collect();
                    let v = self.b.tuple_new(&vs);
                    return self.assign_target(target, Val { v, ty }, span);
                };
                if ts.len() != items.len() {
                    return Err(Diagnostic::error(format!(
                        "cannot unpack {} values into {} targets",
                        items.len(),
                        ts.len()
                    ))
                    .with_primary(target.span, format!("{} targets", ts.len())));
                }
                for (t, it) in ts.iter().zip(items) {
                    self.bind_item(t, it, span)?;
                }
                Ok(())
            }
        }
    }

    fn item_value(&mut self, it: Item) -> Val {
        match it {
            Item::One(v) => v,
            Item::Tup(items) => {
                let vals: Vec<Val> = items.into_iter().map(|i| self.item_value(i)).collect();
                let ty = Ty::Tuple(vals.iter().map(|v| v.ty.clone()).collect());
                let vs: Vec<Value> = vals.iter().map(|v| v.v).collect();
                let v = self.b.tuple_new(&vs);
                Val { v, ty }
            }
        }
    }

    /// What a `for` iterates over.
    fn iterable(&mut self, e: &Expr) -> R<Iterable> {
        if let ExprKind::Call {
            func,
            args,
            keywords,
        } = &e.kind
            && let ExprKind::Name(fname) = &func.kind
            && !self.st.vars.contains_key(fname)
        {
            match fname.as_str() {
                "range" => {
                    if !keywords.is_empty() || args.is_empty() || args.len() > 3 {
                        return Err(Diagnostic::error(format!(
                            "`range` takes 1 to 3 positional arguments, got {}",
                            args.len() + keywords.len()
                        ))
                        .with_primary(e.span, "wrong number of arguments")
                        .with_help("write `range(stop)`, `range(start, stop)` or `range(start, stop, step)`"));
                    }
                    let mut vals = Vec::new();
                    for a in args {
                        let v = self.expr_hint(a, Some(&Ty::Int))?;
                        vals.push(self.expect_int(v, a, "`range` argument")?);
                    }
                    let step_const = match args.get(2) {
                        None => Some(1),
                        Some(a) => const_int_expr(a),
                    };
                    let (start, stop, step) = match vals.as_slice() {
                        [stop] => {
                            let z = self.b.const_int(0);
                            let one = self.b.const_int(1);
                            (z, *stop, one)
                        }
                        [a, b] => {
                            let one = self.b.const_int(1);
                            (*a, *b, one)
                        }
                        [a, b, c] => (*a, *b, *c),
                        _ => {
                            return Err(Diagnostic::error("`range` takes 1 to 3 arguments")
                                .with_primary(e.span, "wrong number of arguments"));
                        }
                    };
                    return Ok(Iterable::Range {
                        start,
                        stop,
                        step,
                        step_const,
                    });
                }
                "enumerate" => {
                    let Some(first) = args.first() else {
                        return Err(Diagnostic::error("`enumerate` needs an iterable")
                            .with_primary(e.span, "missing argument"));
                    };
                    let inner = self.iterable(first)?;
                    let start_e = args.get(1).or_else(|| {
                        keywords
                            .iter()
                            .find(|k| k.arg.as_ref().is_some_and(|a| a.name == "start"))
                            .map(|k| &k.value)
                    });
                    let start = match start_e {
                        Some(s) => {
                            let v = self.expr(s)?;
                            self.expect_int(v, s, "`enumerate` start")?
                        }
                        None => self.b.const_int(0),
                    };
                    return Ok(Iterable::Enumerate(Box::new(inner), start));
                }
                "reversed" => {
                    let [a] = args.as_slice() else {
                        return Err(Diagnostic::error("`reversed` takes exactly one argument")
                            .with_primary(e.span, "wrong number of arguments"));
                    };
                    let inner = self.iterable(a)?;
                    if matches!(inner, Iterable::Zip(_) | Iterable::Enumerate(..)) {
                        return Err(Diagnostic::error(
                            "`reversed` of `zip`/`enumerate` is not supported",
                        )
                        .with_primary(e.span, "not reversible")
                        .with_help(
                            "reverse the sequences inside: `zip(reversed(a), reversed(b))`",
                        ));
                    }
                    let n = self.trip_count(&inner, a.span)?;
                    return Ok(Iterable::Reversed(Box::new(inner), n));
                }
                "zip" => {
                    if args.is_empty() {
                        return Err(Diagnostic::error("`zip` needs at least one iterable")
                            .with_primary(e.span, "missing argument"));
                    }
                    let its = args
                        .iter()
                        .map(|a| self.iterable(a))
                        .collect::<R<Vec<_>>>()?;
                    return Ok(Iterable::Zip(its));
                }
                _ => {}
            }
        }
        let v = self.expr(e)?;
        match v.ty {
            Ty::List(elem) => Ok(Iterable::List(v.v, *elem)),
            // `for k in d`: over a snapshot of the keys (Python raises if the loop changes the
            // dict's size; TorchScript iterates its `keys()` list, as here).
            Ty::Dict(k, _) => {
                let ty = Type::list(ir_type(&k));
                let l = self.b.insert1(pyjit_ir::OpKind::DictKeys, &[v.v], ty);
                Ok(Iterable::List(l, *k))
            }
            Ty::Tensor => Ok(Iterable::Tensor(v.v)),
            Ty::Tuple(ts) => {
                let mut out = Vec::new();
                for (i, t) in ts.into_iter().enumerate() {
                    let x = self.b.tuple_get(v.v, i as u32);
                    out.push(Val { v: x, ty: t });
                }
                Ok(Iterable::Unrolled(out))
            }
            other => Err(self.with_param_help(
                Diagnostic::error(format!("cannot iterate over a value of type `{other}`"))
                    .with_primary(e.span, format!("`{other}` is not iterable"))
                    .with_help("iterate over `range(...)`, a `List`, a tensor, a tuple, `enumerate` or `zip`"),
                e,
                &other,
                "a List",
            )),
        }
    }

    /// The elements of a tuple being iterated (a tuple display or a tuple-typed value).
    fn tuple_elements(&mut self, e: &Expr) -> R<Option<Vec<Val>>> {
        if let ExprKind::Tuple(items) = &e.kind {
            let vals = items.iter().map(|i| self.expr(i)).collect::<R<Vec<_>>>()?;
            return Ok(Some(vals));
        }
        if let ExprKind::Name(n) = &e.kind
            && let Some(Binding::Val {
                ty: Ty::Tuple(ts),
                v,
                ..
            }) = self.st.vars.get(n).cloned()
        {
            let mut out = Vec::new();
            for (i, t) in ts.into_iter().enumerate() {
                let x = self.b.tuple_get(v, i as u32);
                out.push(Val { v: x, ty: t });
            }
            return Ok(Some(out));
        }
        Ok(None)
    }

    // ---- raise / assert ----

    fn stmt_raise(&mut self, exc: Option<&Expr>, span: Span) -> R<()> {
        let Some(exc) = exc else {
            return Err(
                Diagnostic::error("bare `raise` is not supported").with_primary(span, "re-raise")
            );
        };
        let (class_e, args) = match &exc.kind {
            ExprKind::Call { func, args, .. } => (func.as_ref(), args.as_slice()),
            _ => (exc, &[][..]),
        };
        let Some(class) = class_e.dotted_name() else {
            return Err(Diagnostic::error("`raise` needs an exception class")
                .with_primary(exc.span, "not an exception")
                .with_help("write `raise Exception(\"message\")`"));
        };
        let class = class.rsplit('.').next().unwrap_or("Exception").to_string();
        let msg = match args {
            [] => self.b.const_str(""),
            // `str(KeyError(k))` is `repr(k)`: `KeyError: 'name'`, `KeyError: 3`.
            [m] if class == "KeyError" => {
                let is_text = matches!(m.kind, ExprKind::Str(_) | ExprKind::FString(_))
                    || matches!(&m.kind, ExprKind::Call { func, .. }
                        if matches!(&func.kind, ExprKind::Attribute { attr, .. } if attr.name == "format"));
                let v = if is_text {
                    self.message(m)?
                } else {
                    self.expr(m)?.v
                };
                self.set_span(m.span);
                self.b.str_of(v, "!r")
            }
            [m] => self.message(m)?,
            more => {
                let parts = more
                    .iter()
                    .map(|m| self.message(m))
                    .collect::<R<Vec<_>>>()?;
                let sep = self.b.const_str(", ");
                let mut all = Vec::new();
                for (i, p) in parts.into_iter().enumerate() {
                    if i > 0 {
                        all.push(sep);
                    }
                    all.push(p);
                }
                self.b.str_concat(&all)
            }
        };
        self.set_span(span);
        self.b.raise(class, msg);
        self.st.unreachable = true;
        Ok(())
    }

    fn stmt_assert(&mut self, test: &Expr, msg: Option<&Expr>) -> R<()> {
        let c = self.cond(test)?;
        match msg {
            // A computed message (an f-string) is only built when the assertion fails, as in
            // Python: `if not cond { raise }`.
            Some(m) if !matches!(m.kind, ExprKind::Str(_)) => {
                self.set_span(test.span);
                let failed = self.b.not(c.v);
                self.raise_if(failed, "AssertionError", |s| {
                    let mv = s.message(m)?;
                    s.set_span(test.span);
                    Ok(mv)
                })?;
            }
            _ => {
                let m = match msg {
                    Some(m) => self.message(m)?,
                    None => self.b.const_str(""),
                };
                self.set_span(test.span);
                self.b.check("AssertionError", c.v, m);
            }
        }
        self.refine(&c.if_true);
        Ok(())
    }
}

/// A tuple inside `enumerate`/`zip`/`reversed`: its elements may differ in type, so it can only
/// be iterated by an unrolled plain `for`.
fn tuple_in_combinator(span: Span) -> Diagnostic {
    Diagnostic::error("tuples can only be iterated directly (`for x in t:`)")
        .with_primary(span, "tuple inside `enumerate`/`zip`/`reversed`")
        .with_help("use a `List` for the sequence, or iterate the tuple directly")
}

fn collect_target_names(t: &Expr, out: &mut Vec<String>) {
    match &t.kind {
        ExprKind::Name(n) if !out.contains(n) => out.push(n.clone()),
        ExprKind::Tuple(items) | ExprKind::List(items) => {
            for i in items {
                collect_target_names(i, out);
            }
        }
        _ => {}
    }
}

/// The value of an integer literal (possibly negated).
pub(crate) fn const_int_expr(e: &Expr) -> Option<i64> {
    match &e.kind {
        ExprKind::Int(v) => i64::try_from(*v).ok(),
        ExprKind::UnaryOp {
            op: pyjit_syntax::ast::UnaryOp::Neg,
            operand,
        } => const_int_expr(operand).map(|v| v.wrapping_neg()),
        _ => None,
    }
}
