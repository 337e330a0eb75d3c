//! Expressions: names, literals, operators on scalars, conditions with `Optional` refinement,
//! calls of module functions and builtins, `math.*`, lists, tuples, messages.

use super::tensor::{SArg, ScalarTy};
use super::{Binding, Lower, R, Val, ir_type, unify, unsupported_operands};
use crate::module::Const as MConst;
use crate::ty::{Ty, parse_annotation};
use pyjit_ir::{
    BoolBinOp, CastOp, CmpOp as ICmp, FloatBinOp, FloatUnOp, IntBinOp, IntUnOp, MathFn, Type, Value,
};
use pyjit_syntax::ast::{BinOp, BoolOp, CmpOp, Expr, ExprKind, FStringPart, Keyword, UnaryOp};
use pyjit_syntax::{Diagnostic, Span};

/// A lowered condition: the `bool` value and the `Optional` variables known to hold a value when
/// it is true / false.
#[derive(Clone, Debug)]
pub(crate) struct Cond {
    pub v: Value,
    pub if_true: Vec<String>,
    pub if_false: Vec<String>,
}

pub(crate) const BUILTINS: &[&str] = &[
    "range",
    "reversed",
    "len",
    "list",
    "min",
    "max",
    "abs",
    "int",
    "float",
    "bool",
    "round",
    "sum",
    "print",
    "isinstance",
    "enumerate",
    "zip",
    "pow",
    "divmod",
];

impl Lower<'_, '_, '_> {
    pub fn expr(&mut self, e: &Expr) -> R<Val> {
        self.expr_hint(e, None)
    }

    /// Lowers an expression; `hint` is the type the context expects (it types `[]` and `None`).
    pub(crate) fn expr_hint(&mut self, e: &Expr, hint: Option<&Ty>) -> R<Val> {
        self.set_span(e.span);
        // Expressions nest as deep as the parser allows: grow the stack instead of overflowing.
        super::with_stack(|| self.expr_inner(e, hint))
    }

    fn expr_inner(&mut self, e: &Expr, hint: Option<&Ty>) -> R<Val> {
        match &e.kind {
            ExprKind::Int(v) => {
                let Ok(v) = i64::try_from(*v) else {
                    return Err(Diagnostic::error("integer literal does not fit in 64 bits")
                        .with_primary(e.span, "out of the range of `int` (int64)"));
                };
                let v = self.b.const_int(v);
                Ok(Val { v, ty: Ty::Int })
            }
            ExprKind::Float(f) => {
                let v = self.b.const_float(*f);
                Ok(Val { v, ty: Ty::Float })
            }
            ExprKind::Bool(x) => {
                let v = self.b.const_bool(*x);
                Ok(Val { v, ty: Ty::Bool })
            }
            ExprKind::None => {
                if let Some(Ty::Optional(inner)) = hint {
                    let v = self.b.opt_none(ir_type(inner));
                    return Ok(Val {
                        v,
                        ty: Ty::Optional(inner.clone()),
                    });
                }
                let v = self.b.const_none();
                Ok(Val { v, ty: Ty::None })
            }
            ExprKind::Str(s) => {
                let v = self.b.const_str(s.clone());
                Ok(Val { v, ty: Ty::Str })
            }
            ExprKind::FString(_) => {
                let v = self.message(e)?;
                Ok(Val { v, ty: Ty::Str })
            }
            // `"... {} ...".format(a, b)` as a value.
            ExprKind::Call { func, keywords, .. }
                if keywords.is_empty()
                    && matches!(&func.kind, ExprKind::Attribute { value, attr }
                        if attr.name == "format" && matches!(value.kind, ExprKind::Str(_))) =>
            {
                let v = self.message(e)?;
                Ok(Val { v, ty: Ty::Str })
            }
            ExprKind::Name(n) => self.read_name(n, e.span),
            ExprKind::Tuple(items) => {
                let hints: Vec<Option<Ty>> = match hint {
                    Some(Ty::Tuple(ts)) if ts.len() == items.len() => {
                        ts.iter().cloned().map(Some).collect()
                    }
                    _ => vec![None; items.len()],
                };
                let mut vals = Vec::new();
                for (i, h) in items.iter().zip(&hints) {
                    vals.push(self.expr_hint(i, h.as_ref())?);
                }
                self.set_span(e.span);
                let ty = Ty::Tuple(vals.iter().map(|v| v.ty.clone()).collect());
                let vs: Vec<Value> = vals.iter().map(|v| v.v).collect();
                let v = self.b.tuple_new(&vs);
                Ok(Val { v, ty })
            }
            ExprKind::List(items) => self.list_display(e, items, hint),
            ExprKind::Dict(items) => self.dict_display(e, items, hint),
            ExprKind::ListComp { elt, generators } => {
                self.list_comprehension(e, elt, generators, hint)
            }
            ExprKind::BinOp { left, op, right } => {
                // An `int`/`float` context reaches the operands of arithmetic, so that
                // `t.item() + 1` in an int context reads the tensor as an int.
                let h = match (hint, op) {
                    (
                        Some(Ty::Int),
                        BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::FloorDiv | BinOp::Mod,
                    ) => Some(Ty::Int),
                    (
                        Some(Ty::Float),
                        BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Pow,
                    ) => Some(Ty::Float),
                    _ => None,
                };
                let l = self.expr_hint(left, h.as_ref())?;
                let r = self.expr_hint(right, h.as_ref())?;
                self.set_span(e.span);
                self.binop(*op, l, r, e.span)
            }
            ExprKind::UnaryOp { op, operand } => self.unary(*op, operand, e.span),
            ExprKind::BoolOp { .. } | ExprKind::Compare { .. } => {
                let c = self.cond_or_value(e)?;
                Ok(c)
            }
            ExprKind::IfExp { test, body, orelse } => {
                self.ternary(test, body, orelse, e.span, hint)
            }
            ExprKind::Call {
                func,
                args,
                keywords,
            } => {
                // `t.item()` has the type its context wants (Python's depends on the dtype).
                if let ExprKind::Attribute { value, attr } = &func.kind
                    && attr.name == "item"
                    && args.is_empty()
                    && keywords.is_empty()
                    && matches!(hint, Some(Ty::Int | Ty::Bool))
                {
                    let recv = self.expr(value)?;
                    if recv.ty == Ty::Tensor {
                        self.set_span(e.span);
                        let (k, ty) = match hint {
                            Some(Ty::Int) => (ScalarTy::Int, Ty::Int),
                            _ => (ScalarTy::Bool, Ty::Bool),
                        };
                        let v = self.item_of(k, recv.v)?;
                        return Ok(Val { v, ty });
                    }
                }
                // `t.tolist()` has the type its context wants (TorchScript requires one).
                if let ExprKind::Attribute { value, attr } = &func.kind
                    && attr.name == "tolist"
                    && args.is_empty()
                    && keywords.is_empty()
                {
                    let recv = self.expr(value)?;
                    if recv.ty == Ty::Tensor {
                        let op = match hint {
                            Some(Ty::List(t)) if **t == Ty::Int => "tolist_int",
                            Some(Ty::List(t)) if **t == Ty::Float => "tolist_float",
                            _ => {
                                return Err(Diagnostic::error(
                                    "`tolist()` needs the type of its result",
                                )
                                .with_primary(e.span, "result type not known here")
                                .with_help(
                                    "assign it to an annotated variable (`xs: List[int] = t.tolist()`) or return it from a function annotated `-> List[int]` (or `List[float]`); nested lists are not supported",
                                ));
                            }
                        };
                        return self.schema_call(
                            op,
                            vec![SArg::V(recv)],
                            vec![],
                            "Tensor.tolist",
                            e.span,
                        );
                    }
                }
                self.call(e, func, args, keywords)
            }
            ExprKind::Attribute { value, attr } => self.attribute(e, value, &attr.name, attr.span),
            ExprKind::Subscript { value, index } => self.subscript(e, value, index),
            ExprKind::Ellipsis | ExprKind::Slice { .. } => Err(Diagnostic::error(
                "`...` and slices are only allowed inside a subscript",
            )
            .with_primary(e.span, "not a value")),
            // The checker rejected the rest before lowering.
            _ => Err(Diagnostic::error("unsupported expression")
                .with_primary(e.span, "not part of the language")),
        }
    }

    /// Reads a variable (unwrapping a refined `Optional`), or a module constant.
    pub(crate) fn read_name(&mut self, n: &str, span: Span) -> R<Val> {
        match self.st.vars.get(n).cloned() {
            Some(Binding::Val { v, ty, refined }) => {
                if refined && let Ty::Optional(inner) = &ty {
                    let u = self.b.opt_unwrap(v);
                    return Ok(Val {
                        v: u,
                        ty: (**inner).clone(),
                    });
                }
                Ok(Val { v, ty })
            }
            Some(Binding::Undef {
                reason: super::Undefined::Poisoned,
                ..
            }) => Err(Diagnostic::reported_elsewhere()),
            Some(Binding::Undef { reason, .. }) => Err(Diagnostic::error(format!(
                "`{n}` is not defined on every path reaching this use"
            ))
            .with_primary(span, format!("`{n}` may be undefined here"))
            .with_note(reason.to_string())
            .with_help(format!(
                "assign `{n}` before the `if`/loop, or on every path"
            ))),
            None => {
                if let Some(c) = self.m.info.constants.get(n).cloned() {
                    return Ok(self.module_const(&c));
                }
                if self.m.info.fn_index.contains_key(n) {
                    return Err(Diagnostic::error(format!("function `{n}` used as a value"))
                        .with_primary(span, "functions are not values")
                        .with_help(format!("call it: `{n}(...)`")));
                }
                if let Some(module) = self.m.info.imports.bound.get(n) {
                    return Err(
                        Diagnostic::error(format!("module `{module}` used as a value"))
                            .with_primary(span, "not a value")
                            .with_help(format!(
                                "use one of its members, like `{n}.something(...)`"
                            )),
                    );
                }
                if let Some(gspan) = self.m.info.other_globals.get(n) {
                    return Err(Diagnostic::error(format!(
                        "module-level variable `{n}` is not a compile-time constant"
                    ))
                    .with_primary(span, "used here")
                    .with_secondary(*gspan, "assigned here")
                    .with_help("only int, float, bool and tuples of them can be module constants; pass other values as parameters"));
                }
                if self.assigned_anywhere.iter().any(|a| a == n) {
                    return Err(
                        Diagnostic::error(format!("`{n}` is used before it is assigned"))
                            .with_primary(span, format!("`{n}` has no value yet here"))
                            .with_help(format!("assign `{n}` before this line")),
                    );
                }
                let mut d = Diagnostic::error(format!("undefined name `{n}`"))
                    .with_primary(span, "not a variable, parameter, function or constant");
                if BUILTINS.contains(&n) {
                    d = d.with_help(format!("`{n}` can only be called: `{n}(...)`"));
                } else if let Some(s) = self.suggest_name(n) {
                    d = d.with_help(format!("did you mean `{s}`?"));
                }
                Err(d)
            }
        }
    }

    fn suggest_name(&self, n: &str) -> Option<String> {
        let mut best: Option<(usize, String)> = None;
        let candidates = self
            .st
            .vars
            .keys()
            .cloned()
            .chain(self.m.info.fn_index.keys().cloned())
            .chain(self.m.info.constants.keys().cloned());
        for c in candidates {
            let d = edit_distance(n, &c);
            if d <= 2 && d < n.len() && best.as_ref().is_none_or(|(bd, _)| d < *bd) {
                best = Some((d, c));
            }
        }
        best.map(|(_, c)| c)
    }

    pub(crate) fn module_const(&mut self, c: &MConst) -> Val {
        match c {
            MConst::Int(v) => Val {
                v: self.b.const_int(*v),
                ty: Ty::Int,
            },
            MConst::Float(v) => Val {
                v: self.b.const_float(*v),
                ty: Ty::Float,
            },
            MConst::Bool(v) => Val {
                v: self.b.const_bool(*v),
                ty: Ty::Bool,
            },
            MConst::None => Val {
                v: self.b.const_none(),
                ty: Ty::None,
            },
            MConst::Str(s) => Val {
                v: self.b.const_str(s),
                ty: Ty::Str,
            },
            MConst::DType(d) => Val {
                v: self.b.const_dtype(super::tensor::ir_dtype(*d)),
                ty: Ty::DType,
            },
            MConst::Tuple(items) => {
                let vals: Vec<Val> = items.iter().map(|i| self.module_const(i)).collect();
                let ty = Ty::Tuple(vals.iter().map(|v| v.ty.clone()).collect());
                let vs: Vec<Value> = vals.iter().map(|v| v.v).collect();
                Val {
                    v: self.b.tuple_new(&vs),
                    ty,
                }
            }
        }
    }

    /// `[elt for x in xs if c ...]`: lowered as the `for` loops that append to a fresh list
    /// (TorchScript's semantics: the loop variables do not leak). The element type is the type
    /// of `elt`, found by lowering the loops once into a branch that never runs.
    fn list_comprehension(
        &mut self,
        e: &Expr,
        elt: &Expr,
        generators: &[pyjit_syntax::ast::Comprehension],
        hint: Option<&Ty>,
    ) -> R<Val> {
        use pyjit_syntax::ast::{For, Ident, Stmt, StmtKind};
        let span = e.span;
        let name = format!("\u{0}comp{}", span.start);
        let var = Expr {
            kind: ExprKind::Name(name.clone()),
            span,
        };
        // The innermost statement, wrapped in the ifs and loops from the inside out.
        let nest = |inner: Stmt| -> Stmt {
            let mut s = inner;
            for g in generators.iter().rev() {
                for c in g.ifs.iter().rev() {
                    s = Stmt {
                        kind: StmtKind::If {
                            test: c.clone(),
                            body: vec![s],
                            orelse: vec![],
                        },
                        span,
                    };
                }
                s = Stmt {
                    kind: StmtKind::For(For {
                        target: g.target.clone(),
                        iter: g.iter.clone(),
                        body: vec![s],
                        orelse: vec![],
                        is_async: false,
                    }),
                    span,
                };
            }
            s
        };
        let saved = self.st.clone();
        // Pass 1: the element type, in a branch that never runs.
        let elem = match hint {
            Some(Ty::List(t)) => (**t).clone(),
            _ => {
                let probe = nest(Stmt {
                    kind: StmtKind::Assign {
                        targets: vec![var.clone()],
                        value: elt.clone(),
                        type_comment: None,
                    },
                    span,
                });
                let never = self.b.const_bool(false);
                let then_r = self.b.new_region(&[]);
                let else_r = self.b.new_region(&[]);
                let ip = self.b.position_at_end(then_r);
                let r = self.stmt(&probe);
                let ty = match self.st.vars.get(&name) {
                    Some(Binding::Val { ty, .. }) | Some(Binding::Undef { ty: Some(ty), .. }) => {
                        Some(ty.clone())
                    }
                    _ => None,
                };
                if !self.st.unreachable {
                    self.b.yield_(&[]);
                }
                self.b.position_at_end(else_r);
                self.b.yield_(&[]);
                self.b.set_insert_point(ip);
                self.b.if_(never, then_r, else_r, &[]);
                self.st = saved.clone();
                r?;
                match ty {
                    Some(t) => t,
                    // no element is ever produced: TorchScript's default
                    None => Ty::Tensor,
                }
            }
        };
        // Pass 2: the loops, appending.
        self.set_span(span);
        let out = self.b.list_new(ir_type(&elem), &[]);
        self.st.vars.insert(
            name.clone(),
            Binding::Val {
                v: out,
                ty: Ty::list(elem.clone()),
                refined: false,
            },
        );
        let append = Expr {
            kind: ExprKind::Call {
                func: Box::new(Expr {
                    kind: ExprKind::Attribute {
                        value: Box::new(var.clone()),
                        attr: Ident {
                            name: "append".into(),
                            span,
                        },
                    },
                    span,
                }),
                args: vec![elt.clone()],
                keywords: vec![],
            },
            span,
        };
        let body = nest(Stmt {
            kind: StmtKind::Expr(append),
            span,
        });
        let r = self.stmt(&body);
        // The loop variables do not leak; the list is the value.
        let vars = saved.vars.clone();
        self.st.vars = vars;
        r?;
        Ok(Val {
            v: out,
            ty: Ty::list(elem),
        })
    }

    fn list_display(&mut self, e: &Expr, items: &[Expr], hint: Option<&Ty>) -> R<Val> {
        let hinted_elem = match hint {
            Some(Ty::List(t)) => Some((**t).clone()),
            Some(Ty::Optional(inner)) => match inner.as_ref() {
                Ty::List(t) => Some((**t).clone()),
                _ => None,
            },
            _ => None,
        };
        let mut vals = Vec::new();
        for i in items {
            vals.push(self.expr_hint(i, hinted_elem.as_ref())?);
        }
        self.set_span(e.span);
        let elem = match hinted_elem {
            Some(t) => t,
            None => {
                // An empty list without annotation is a List[Tensor], as in TorchScript.
                let mut acc: Option<Ty> = None;
                for (v, item) in vals.iter().zip(items) {
                    acc = Some(match acc {
                        None => v.ty.clone(),
                        Some(a) => match unify(&a, &v.ty) {
                            Some(u)
                                if !matches!(u, Ty::Optional(_))
                                    || matches!(a, Ty::Optional(_)) =>
                            {
                                u
                            }
                            _ => {
                                return Err(Diagnostic::error(format!(
                                    "list elements have different types: `{a}` and `{}`",
                                    v.ty
                                ))
                                .with_primary(item.span, format!("`{}`", v.ty))
                                .with_help(
                                    "lists are homogeneous: convert the elements to one type",
                                ));
                            }
                        },
                    });
                }
                acc.unwrap_or(Ty::Tensor)
            }
        };
        let mut vs = Vec::new();
        for (v, item) in vals.into_iter().zip(items) {
            vs.push(self.coerce(v, &elem, item.span, |got, want| {
                format!("list element has type `{got}`, but the list holds `{want}`")
            })?);
        }
        self.set_span(e.span);
        let v = self.b.list_new(ir_type(&elem), &vs);
        Ok(Val {
            v,
            ty: Ty::list(elem),
        })
    }

    /// `{k: v, ...}`: a fresh `Dict[K, V]`, its types from the annotation or the first entry
    /// (an empty display without one is a `Dict[str, Tensor]`, as in TorchScript).
    fn dict_display(
        &mut self,
        e: &Expr,
        items: &[(Option<Expr>, Expr)],
        hint: Option<&Ty>,
    ) -> R<Val> {
        let hinted = match hint {
            Some(Ty::Dict(k, v)) => Some(((**k).clone(), (**v).clone())),
            Some(Ty::Optional(inner)) => match inner.as_ref() {
                Ty::Dict(k, v) => Some(((**k).clone(), (**v).clone())),
                _ => None,
            },
            _ => None,
        };
        let mut pairs = Vec::new();
        for (k, v) in items {
            let Some(k) = k else {
                return Err(
                    Diagnostic::error("`**` unpacking in a dict display is not supported")
                        .with_primary(v.span, "`**` unpacking"),
                );
            };
            let kv = self.expr_hint(k, hinted.as_ref().map(|h| &h.0))?;
            let vv = self.expr_hint(v, hinted.as_ref().map(|h| &h.1))?;
            pairs.push((kv, k.span, vv, v.span));
        }
        let (kt, vt) = match hinted {
            Some(h) => h,
            None => match pairs.first() {
                Some((k, _, v, _)) => (k.ty.clone(), v.ty.clone()),
                None => (Ty::Str, Ty::Tensor),
            },
        };
        if !matches!(kt, Ty::Int | Ty::Str) {
            let span = pairs.first().map(|p| p.1).unwrap_or(e.span);
            return Err(Diagnostic::error(format!(
                "dictionary keys of type `{kt}` are not supported"
            ))
            .with_primary(span, format!("`{kt}` key"))
            .with_help("use `str` or `int` keys"));
        }
        let mut vs = Vec::new();
        for (k, ks, v, vspan) in pairs {
            vs.push(self.coerce(k, &kt, ks, |got, want| {
                format!("dict key has type `{got}`, but the dict's keys are `{want}`")
            })?);
            vs.push(self.coerce(v, &vt, vspan, |got, want| {
                format!("dict value has type `{got}`, but the dict holds `{want}`")
            })?);
        }
        self.set_span(e.span);
        let ty = Ty::Dict(Box::new(kt), Box::new(vt));
        let v = self.b.insert1(pyjit_ir::OpKind::DictNew, &vs, ir_type(&ty));
        Ok(Val { v, ty })
    }

    /// A key for dictionary `d` of key type `kt`: the key converted as an assignment would.
    pub(crate) fn dict_key(&mut self, kt: &Ty, key: &Expr) -> R<Value> {
        let k = self.expr_hint(key, Some(kt))?;
        self.coerce(k, kt, key.span, |got, want| {
            format!("dict key has type `{got}`, but the dict's keys are `{want}`")
        })
    }

    // ---- conversions ----

    /// Converts `val` to `want` with the implicit conversions of the language (`int` → `float`,
    /// `T`/`None` → `Optional[T]`, element-wise for tuples), or fails with `msg(got, want)`.
    pub fn coerce(
        &mut self,
        val: Val,
        want: &Ty,
        span: Span,
        msg: impl Fn(&Ty, &Ty) -> String,
    ) -> R<Value> {
        match self.try_coerce(&val, want) {
            Some(v) => Ok(v),
            None => Err(Diagnostic::error(msg(&val.ty, want))
                .with_primary(span, format!("this is `{}`", val.ty))),
        }
    }

    pub(crate) fn try_coerce(&mut self, val: &Val, want: &Ty) -> Option<Value> {
        if &val.ty == want {
            return Some(val.v);
        }
        match (&val.ty, want) {
            (Ty::Int, Ty::Float) => Some(self.b.cast(CastOp::IntToFloat, val.v)),
            (Ty::None, Ty::Optional(inner)) => Some(self.b.opt_none(ir_type(inner))),
            (Ty::Optional(a), Ty::Optional(b)) if a == b => Some(val.v),
            (_, Ty::Optional(inner)) if !matches!(val.ty, Ty::Optional(_)) => {
                let v = self.try_coerce(val, inner)?;
                Some(self.b.opt_wrap(v))
            }
            (Ty::Tuple(ts), Ty::Tuple(ws)) if ts.len() == ws.len() => {
                let mut out = Vec::new();
                for (i, (t, w)) in ts.clone().iter().zip(ws).enumerate() {
                    let x = self.b.tuple_get(val.v, i as u32);
                    out.push(self.try_coerce(
                        &Val {
                            v: x,
                            ty: t.clone(),
                        },
                        w,
                    )?);
                }
                Some(self.b.tuple_new(&out))
            }
            _ => None,
        }
    }

    /// Adds the "parameter has no annotation" help when `e` names an unannotated parameter that
    /// is still its initial value and a `Tensor` was the problem.
    pub(crate) fn with_param_help(
        &self,
        d: Diagnostic,
        e: &Expr,
        got: &Ty,
        want: &str,
    ) -> Diagnostic {
        if *got == Ty::Tensor
            && let ExprKind::Name(n) = &e.kind
            && let Some(v0) = self.unannotated.get(n)
            && matches!(self.st.vars.get(n), Some(Binding::Val { v, .. }) if v == v0)
        {
            let param_span = self.m.sigs[self.idx]
                .as_ref()
                .and_then(|s| s.params.iter().find(|p| &p.name == n).map(|p| p.span));
            let mut d = d.with_help(format!(
                "parameter `{n}` has no annotation, so it is a Tensor; annotate it as `{want}`?"
            ));
            if let Some(ps) = param_span {
                d = d.with_secondary(ps, "declared here without annotation");
            }
            return d;
        }
        d
    }

    /// Requires an `int` (a `bool` is not silently accepted).
    pub(crate) fn expect_int(&mut self, v: Val, e: &Expr, what: &str) -> R<Value> {
        match v.ty {
            Ty::Int => Ok(v.v),
            other => Err(self.with_param_help(
                Diagnostic::error(format!("{what} must be an `int`, found `{other}`"))
                    .with_primary(e.span, format!("this is `{other}`"))
                    .with_help(match other {
                        Ty::Float | Ty::Bool => "convert it with `int(...)`",
                        Ty::Tensor => "convert a one-element tensor with `int(...)`",
                        _ => "use an integer expression",
                    }),
                e,
                &other,
                "int",
            )),
        }
    }

    fn as_float(&mut self, v: &Val) -> Value {
        match v.ty {
            Ty::Int => self.b.cast(CastOp::IntToFloat, v.v),
            Ty::Bool => self.b.cast(CastOp::BoolToFloat, v.v),
            _ => v.v,
        }
    }

    fn as_int(&mut self, v: &Val) -> Value {
        match v.ty {
            Ty::Bool => self.b.cast(CastOp::BoolToInt, v.v),
            _ => v.v,
        }
    }

    /// Truthiness as a `bool` value: Python's rules for scalars, one-element tensors, lists.
    pub fn truthy(&mut self, v: Val, e: &Expr) -> R<Value> {
        Ok(match &v.ty {
            Ty::Bool => v.v,
            Ty::Int => self.b.cast(CastOp::IntToBool, v.v),
            Ty::Float => self.b.cast(CastOp::FloatToBool, v.v),
            Ty::Tensor => self.scalar_of(ScalarTy::Bool, v.v)?,
            Ty::List(_) => {
                let n = self.b.list_len(v.v);
                let z = self.b.const_int(0);
                self.b.int_cmp(ICmp::Ne, n, z)
            }
            Ty::None => self.b.const_bool(false),
            other => {
                let hint = if matches!(other, Ty::Optional(_)) {
                    "test it explicitly: `x is not None`"
                } else {
                    "use a comparison that gives a bool"
                };
                return Err(Diagnostic::error(format!(
                    "a value of type `{other}` cannot be used as a condition"
                ))
                .with_primary(e.span, format!("`{other}` has no truth value here"))
                .with_help(hint));
            }
        })
    }

    // ---- conditions ----

    /// Lowers a condition, with `is None` refinements.
    pub fn cond(&mut self, e: &Expr) -> R<Cond> {
        super::with_stack(|| self.cond_inner(e))
    }

    fn cond_inner(&mut self, e: &Expr) -> R<Cond> {
        self.set_span(e.span);
        match &e.kind {
            ExprKind::UnaryOp {
                op: UnaryOp::Not,
                operand,
            } => {
                let c = self.cond(operand)?;
                self.set_span(e.span);
                let v = self.b.not(c.v);
                Ok(Cond {
                    v,
                    if_true: c.if_false,
                    if_false: c.if_true,
                })
            }
            ExprKind::Compare { left, ops }
                if ops.len() == 1 && matches!(ops[0].0, CmpOp::Is | CmpOp::IsNot) =>
            {
                let (op, right) = (&ops[0].0, &ops[0].1);
                let (var_e, other) = if matches!(right.kind, ExprKind::None) {
                    (left.as_ref(), right)
                } else {
                    (right, left.as_ref())
                };
                if !matches!(other.kind, ExprKind::None) {
                    // `x.dtype is torch.float64` & co.: the comparison says what it supports
                    let v = self.compare_chain(left, ops, e.span)?;
                    let b = self.truthy(v, e)?;
                    return Ok(Cond {
                        v: b,
                        if_true: vec![],
                        if_false: vec![],
                    });
                }
                // A variable is tested through its binding: a refined `Optional` is known to hold
                // a value, and the test still names it for the refinement.
                if let ExprKind::Name(n) = &var_e.kind
                    && let Some(Binding::Val {
                        v,
                        ty: Ty::Optional(_),
                        refined,
                    }) = self.st.vars.get(n).cloned()
                {
                    self.set_span(e.span);
                    let is_none = if refined {
                        self.b.const_bool(false)
                    } else {
                        self.b.opt_is_none(v)
                    };
                    let name = vec![n.clone()];
                    return Ok(if matches!(op, CmpOp::Is) {
                        Cond {
                            v: is_none,
                            if_true: vec![],
                            if_false: name,
                        }
                    } else {
                        let v = self.b.not(is_none);
                        Cond {
                            v,
                            if_true: name,
                            if_false: vec![],
                        }
                    });
                }
                let v = self.expr(var_e)?;
                self.set_span(e.span);
                let is_none = match &v.ty {
                    Ty::Optional(_) => self.b.opt_is_none(v.v),
                    Ty::None => self.b.const_bool(true),
                    _ => self.b.const_bool(false),
                };
                let name = match (&var_e.kind, &v.ty) {
                    (ExprKind::Name(n), Ty::Optional(_)) => vec![n.clone()],
                    _ => vec![],
                };
                if matches!(op, CmpOp::Is) {
                    Ok(Cond {
                        v: is_none,
                        if_true: vec![],
                        if_false: name,
                    })
                } else {
                    let v = self.b.not(is_none);
                    Ok(Cond {
                        v,
                        if_true: name,
                        if_false: vec![],
                    })
                }
            }
            ExprKind::BoolOp { op, values } => self.bool_op_cond(*op, values, e.span),
            _ => {
                let v = self.expr(e)?;
                let b = self.truthy(v, e)?;
                Ok(Cond {
                    v: b,
                    if_true: vec![],
                    if_false: vec![],
                })
            }
        }
    }

    /// `a and b and c` / `a or b` as conditions: short-circuit through `if`, refinements of the
    /// left operands visible in the right ones.
    fn bool_op_cond(&mut self, op: BoolOp, values: &[Expr], span: Span) -> R<Cond> {
        let Some((first, rest)) = values.split_first() else {
            let v = self.b.const_bool(matches!(op, BoolOp::And));
            return Ok(Cond {
                v,
                if_true: vec![],
                if_false: vec![],
            });
        };
        let c = self.cond(first)?;
        if rest.is_empty() {
            return Ok(c);
        }
        self.set_span(span);
        let mut inner: Option<Cond> = None;
        let mut inner_err = None;
        let then_r = self.b.new_region(&[]);
        let else_r = self.b.new_region(&[]);
        let saved = self.b.insert_point();
        let saved_vars = self.st.vars.clone();
        let (eval_r, const_r, short) = match op {
            BoolOp::And => (then_r, else_r, false),
            BoolOp::Or => (else_r, then_r, true),
        };
        self.b.position_at_end(eval_r);
        match op {
            BoolOp::And => self.refine(&c.if_true),
            BoolOp::Or => self.refine(&c.if_false),
        }
        match self.bool_op_cond(op, rest, span) {
            Ok(r) => {
                self.b.yield_(&[r.v]);
                inner = Some(r);
            }
            Err(d) => inner_err = Some(d),
        }
        self.st.vars = saved_vars;
        self.b.position_at_end(const_r);
        let k = self.b.const_bool(short);
        self.b.yield_(&[k]);
        self.b.set_insert_point(saved);
        if let Some(d) = inner_err {
            return Err(d);
        }
        let inner = inner.unwrap_or(Cond {
            v: c.v,
            if_true: vec![],
            if_false: vec![],
        });
        self.set_span(span);
        let op_if = self.b.if_(c.v, then_r, else_r, &[Type::Bool]);
        let v = self.b.result(op_if);
        let (if_true, if_false) = match op {
            BoolOp::And => ([c.if_true, inner.if_true].concat(), vec![]),
            BoolOp::Or => (vec![], [c.if_false, inner.if_false].concat()),
        };
        Ok(Cond {
            v,
            if_true,
            if_false,
        })
    }

    /// Comparisons and boolean operators used as values.
    fn cond_or_value(&mut self, e: &Expr) -> R<Val> {
        match &e.kind {
            ExprKind::Compare { left, ops } => {
                if ops.len() == 1 && matches!(ops[0].0, CmpOp::Is | CmpOp::IsNot) {
                    let c = self.cond(e)?;
                    return Ok(Val {
                        v: c.v,
                        ty: Ty::Bool,
                    });
                }
                self.compare_chain(left, ops, e.span)
            }
            ExprKind::BoolOp { op, values } => {
                // Python returns an operand, not a bool: `a or b` with two ints is an int.
                let c = self.bool_op_value(*op, values, e.span)?;
                Ok(c)
            }
            _ => self.expr(e),
        }
    }

    /// `a and b` / `a or b` as a value: bools give a bool; operands of one other type give that
    /// type with Python's rule (`a or b` is `a` if `a` is truthy, else `b`).
    fn bool_op_value(&mut self, op: BoolOp, values: &[Expr], span: Span) -> R<Val> {
        let Some((first, rest)) = values.split_first() else {
            let v = self.b.const_bool(matches!(op, BoolOp::And));
            return Ok(Val { v, ty: Ty::Bool });
        };
        let a = self.expr(first)?;
        if rest.is_empty() {
            return Ok(a);
        }
        if a.ty == Ty::Bool || a.ty == Ty::Tensor {
            let c = self.bool_op_cond(op, values, span)?;
            return Ok(Val {
                v: c.v,
                ty: Ty::Bool,
            });
        }
        let t = self.truthy(a.clone(), first)?;
        self.set_span(span);
        let then_r = self.b.new_region(&[]);
        let else_r = self.b.new_region(&[]);
        let saved = self.b.insert_point();
        let (eval_r, keep_r) = match op {
            BoolOp::And => (then_r, else_r),
            BoolOp::Or => (else_r, then_r),
        };
        self.b.position_at_end(eval_r);
        let r = self.bool_op_value(op, rest, span);
        let r = match r {
            Ok(r) if r.ty == a.ty => {
                self.b.yield_(&[r.v]);
                Ok(r)
            }
            Ok(r) => Err(Diagnostic::error(format!(
                "operands of `{}` have different types: `{}` and `{}`",
                if matches!(op, BoolOp::And) {
                    "and"
                } else {
                    "or"
                },
                a.ty,
                r.ty
            ))
            .with_primary(span, "mixed operand types")
            .with_help("compare explicitly to get bools, e.g. `(a != 0) and (b != 0)`")),
            Err(d) => Err(d),
        };
        self.b.position_at_end(keep_r);
        self.b.yield_(&[a.v]);
        self.b.set_insert_point(saved);
        r?;
        let op_if = self.b.if_(t, then_r, else_r, &[ir_type(&a.ty)]);
        Ok(Val {
            v: self.b.result(op_if),
            ty: a.ty,
        })
    }

    /// `a < b <= c`: each comparison once, later ones only if the earlier hold.
    fn compare_chain(&mut self, left: &Expr, ops: &[(CmpOp, Expr)], span: Span) -> R<Val> {
        let l = self.expr(left)?;
        self.compare_rest(l, left.span, ops, span)
    }

    fn compare_rest(&mut self, l: Val, lspan: Span, ops: &[(CmpOp, Expr)], span: Span) -> R<Val> {
        let Some(((op, right), rest)) = ops.split_first() else {
            let v = self.b.const_bool(true);
            return Ok(Val { v, ty: Ty::Bool });
        };
        let r = self.expr(right)?;
        self.set_span(span);
        let c = self.compare(*op, l, r.clone(), lspan, right.span, span)?;
        if rest.is_empty() {
            return Ok(c);
        }
        if c.ty != Ty::Bool {
            return Err(
                Diagnostic::error("chained comparisons of tensors are not supported")
                    .with_primary(span, "tensor comparison in a chain")
                    .with_help("combine the comparisons with `&`: `(a < b) & (b < c)`"),
            );
        }
        let then_r = self.b.new_region(&[]);
        let else_r = self.b.new_region(&[]);
        let saved = self.b.position_at_end(then_r);
        let inner = self.compare_rest(r, right.span, rest, span);
        if let Ok(v) = &inner {
            self.b.yield_(&[v.v]);
        }
        self.b.position_at_end(else_r);
        let f = self.b.const_bool(false);
        self.b.yield_(&[f]);
        self.b.set_insert_point(saved);
        let inner = inner?;
        if inner.ty != Ty::Bool {
            return Err(
                Diagnostic::error("chained comparisons of tensors are not supported")
                    .with_primary(span, "tensor comparison in a chain"),
            );
        }
        let op_if = self.b.if_(c.v, then_r, else_r, &[Type::Bool]);
        Ok(Val {
            v: self.b.result(op_if),
            ty: Ty::Bool,
        })
    }

    fn compare(
        &mut self,
        op: CmpOp,
        l: Val,
        r: Val,
        lspan: Span,
        rspan: Span,
        span: Span,
    ) -> R<Val> {
        if l.ty == Ty::Tensor || r.ty == Ty::Tensor {
            return self.tensor_compare(op, l, r, span);
        }
        let iop = match op {
            CmpOp::Eq => ICmp::Eq,
            CmpOp::NotEq => ICmp::Ne,
            CmpOp::Lt => ICmp::Lt,
            CmpOp::LtE => ICmp::Le,
            CmpOp::Gt => ICmp::Gt,
            CmpOp::GtE => ICmp::Ge,
            CmpOp::In | CmpOp::NotIn => {
                let v = self.contains(l, r, lspan, rspan, span)?;
                let v = if op == CmpOp::NotIn { self.b.not(v) } else { v };
                return Ok(Val { v, ty: Ty::Bool });
            }
            // dtypes are singletons: `x.dtype is torch.float64` is `==`
            CmpOp::Is | CmpOp::IsNot if l.ty == Ty::DType && r.ty == Ty::DType => {
                return self.dtype_eq(op == CmpOp::Is, l, r, span);
            }
            CmpOp::Is | CmpOp::IsNot => {
                return Err(
                    Diagnostic::error("`is` / `is not` are only supported with `None`")
                        .with_primary(span, "identity comparison")
                        .with_help("use `==` / `!=` to compare values"),
                );
            }
        };
        let v = match (&l.ty, &r.ty) {
            (Ty::Int, Ty::Int) => self.b.int_cmp(iop, l.v, r.v),
            (Ty::Bool, Ty::Bool) => self.b.bool_cmp(iop, l.v, r.v),
            (Ty::Int | Ty::Bool, Ty::Int | Ty::Bool) => {
                let a = self.as_int(&l);
                let b = self.as_int(&r);
                self.b.int_cmp(iop, a, b)
            }
            (a, b) if a.is_scalar() && b.is_scalar() => {
                let x = self.as_float(&l);
                let y = self.as_float(&r);
                self.b.float_cmp(iop, x, y)
            }
            (Ty::None, Ty::None) if matches!(iop, ICmp::Eq | ICmp::Ne) => {
                self.b.const_bool(iop == ICmp::Eq)
            }
            (Ty::DType, Ty::DType) if matches!(iop, ICmp::Eq | ICmp::Ne) => {
                return self.dtype_eq(iop == ICmp::Eq, l, r, span);
            }
            (Ty::Str, Ty::Str) if matches!(iop, ICmp::Eq | ICmp::Ne) => {
                let name = if iop == ICmp::Eq { "eq" } else { "ne" };
                return self.schema_call(
                    name,
                    vec![SArg::V(l), SArg::V(r)],
                    vec![],
                    "str ==",
                    span,
                );
            }
            (Ty::List(_), Ty::List(_)) | (Ty::Tuple(_), Ty::Tuple(_))
                if matches!(iop, ICmp::Eq | ICmp::Ne) =>
            {
                let eq = self.sequence_eq(l.clone(), r.clone(), lspan, rspan, span)?;
                let v = if iop == ICmp::Eq { eq } else { self.b.not(eq) };
                return Ok(Val { v, ty: Ty::Bool });
            }
            (a, b) => {
                return Err(Diagnostic::error(format!(
                    "cannot compare `{a}` {} `{b}`",
                    op.symbol()
                ))
                .with_primary(span, format!("`{a}` {} `{b}`", op.symbol()))
                .with_help(if matches!(a, Ty::Optional(_)) || matches!(b, Ty::Optional(_)) {
                    "the operand may be None: test it first (`if x is not None:`)"
                } else {
                    "compare values of the same kind (numbers with numbers, tensors with tensors or numbers)"
                }));
            }
        };
        Ok(Val { v, ty: Ty::Bool })
    }

    /// `a == b` on tuples (element-wise, unrolled) and lists of scalars (lengths, then a loop):
    /// what `x.size() == y.size()` needs.
    fn sequence_eq(&mut self, l: Val, r: Val, lspan: Span, rspan: Span, span: Span) -> R<Value> {
        let unsupported = |a: &Ty, b: &Ty| {
            Diagnostic::error(format!("cannot compare `{a}` == `{b}`"))
                .with_primary(span, "unsupported comparison")
                .with_help(
                    "sequences compare element-wise only when their elements are numbers or bools",
                )
        };
        // `a == b` of one pair of elements.
        let elem_eq =
            |this: &mut Self, a: Val, b: Val| this.compare(CmpOp::Eq, a, b, lspan, rspan, span);
        match (l.ty.clone(), r.ty.clone()) {
            (Ty::Tuple(ts), Ty::Tuple(us)) => {
                if ts.len() != us.len() {
                    return Ok(self.b.const_bool(false));
                }
                let mut acc = self.b.const_bool(true);
                for (i, (t, u)) in ts.into_iter().zip(us).enumerate() {
                    let a = self.b.tuple_get(l.v, i as u32);
                    let b = self.b.tuple_get(r.v, i as u32);
                    let c = elem_eq(self, Val { v: a, ty: t }, Val { v: b, ty: u })?;
                    if c.ty != Ty::Bool {
                        return Err(unsupported(&l.ty, &r.ty));
                    }
                    acc = self.b.bool_bin(BoolBinOp::And, acc, c.v);
                }
                Ok(acc)
            }
            (Ty::List(a), Ty::List(b)) if a.is_scalar() && b.is_scalar() => {
                let (a, b) = (*a, *b);
                let n = self.b.list_len(l.v);
                let m = self.b.list_len(r.v);
                let same_len = self.b.int_cmp(ICmp::Eq, n, m);
                let then_r = self.b.new_region(&[]);
                let else_r = self.b.new_region(&[]);
                let saved = self.b.position_at_end(then_r);
                // loop(n, true, eq=true) body(i, eq) { e = l[i] == r[i]; yield (e, e) }
                let t = self.b.const_bool(true);
                let body = self.b.new_region(&[Type::Int, Type::Bool]);
                let params = self.b.func.region_params(body).to_vec();
                self.b.position_at_end(body);
                let x = self.b.list_get(l.v, params[0]);
                let y = self.b.list_get(r.v, params[0]);
                let c = elem_eq(self, Val { v: x, ty: a }, Val { v: y, ty: b });
                let c = match c {
                    Ok(c) => c.v,
                    Err(d) => {
                        self.b.set_insert_point(saved);
                        return Err(d);
                    }
                };
                self.b.yield_(&[c, c]);
                self.b.position_at_end(then_r);
                let op = self.b.loop_(n, t, &[t], body);
                let all = self.b.result(op);
                self.b.yield_(&[all]);
                self.b.position_at_end(else_r);
                let f = self.b.const_bool(false);
                self.b.yield_(&[f]);
                self.b.set_insert_point(saved);
                let op = self.b.if_(same_len, then_r, else_r, &[Type::Bool]);
                Ok(self.b.result(op))
            }
            (a, b) => Err(unsupported(&a, &b)),
        }
    }

    /// `x in xs` for lists (a loop) and tuples (unrolled).
    fn contains(&mut self, l: Val, r: Val, lspan: Span, rspan: Span, span: Span) -> R<Value> {
        match r.ty.clone() {
            Ty::Dict(kt, _) => {
                let k = self.coerce(l, &kt, lspan, |got, want| {
                    format!("`in` a dict with `{want}` keys of a `{got}`")
                })?;
                self.set_span(span);
                Ok(self
                    .b
                    .insert1(pyjit_ir::OpKind::DictContains, &[r.v, k], Type::Bool))
            }
            Ty::Tuple(ts) => {
                let mut acc = self.b.const_bool(false);
                for (i, t) in ts.into_iter().enumerate() {
                    let x = self.b.tuple_get(r.v, i as u32);
                    let c = self.compare(
                        CmpOp::Eq,
                        l.clone(),
                        Val { v: x, ty: t },
                        lspan,
                        rspan,
                        span,
                    )?;
                    if c.ty != Ty::Bool {
                        return Err(Diagnostic::error("`in` on tensors is not supported")
                            .with_primary(span, "tensor element"));
                    }
                    acc = self.b.bool_bin(BoolBinOp::Or, acc, c.v);
                }
                Ok(acc)
            }
            Ty::List(elem) => {
                let elem = *elem;
                let n = self.b.list_len(r.v);
                let t = self.b.const_bool(true);
                let f = self.b.const_bool(false);
                // loop(len, true, found=false) body(i, found) { x = l[i]; found' = x == needle;
                // yield (not found', found') }
                let body = self.b.new_region(&[Type::Int, Type::Bool]);
                let params = self.b.func.region_params(body).to_vec();
                let saved = self.b.position_at_end(body);
                let x = self.b.list_get(r.v, params[0]);
                let c = self.compare(CmpOp::Eq, l, Val { v: x, ty: elem }, lspan, rspan, span);
                let c = match c {
                    Ok(c) if c.ty == Ty::Bool => c.v,
                    Ok(_) => {
                        self.b.set_insert_point(saved);
                        return Err(Diagnostic::error(
                            "`in` on a list of tensors is not supported",
                        )
                        .with_primary(span, "tensor elements"));
                    }
                    Err(d) => {
                        self.b.set_insert_point(saved);
                        return Err(d);
                    }
                };
                let go = self.b.not(c);
                self.b.yield_(&[go, c]);
                self.b.set_insert_point(saved);
                let op = self.b.loop_(n, t, &[f], body);
                Ok(self.b.result(op))
            }
            other => Err(
                Diagnostic::error(format!("`in` is not supported on `{other}`"))
                    .with_primary(rspan, format!("`{other}`"))
                    .with_help("`in` works on lists and tuples"),
            ),
        }
    }

    // ---- arithmetic ----

    pub fn binop(&mut self, op: BinOp, l: Val, r: Val, span: Span) -> R<Val> {
        if l.ty == Ty::Tensor || r.ty == Ty::Tensor {
            return self.tensor_binop(op, l, r, span);
        }
        let bad = |_: &Self| {
            unsupported_operands(op, &l.ty, &r.ty, span).with_help(match (&l.ty, &r.ty) {
                (Ty::List(_), _) | (_, Ty::List(_)) => {
                    "lists only support `+` with a list of the same type; for element-wise arithmetic use a tensor (`torch.tensor(xs)`)"
                }
                _ => "operands must be numbers (int, float, bool) or tensors",
            })
        };
        // `a + b` on lists: a fresh list with the elements of both.
        if op == BinOp::Add
            && let (Ty::List(a), Ty::List(b)) = (&l.ty, &r.ty)
            && a == b
        {
            let elem = (**a).clone();
            let out = self.b.list_new(ir_type(&elem), &[]);
            self.append_all(out, l.v);
            self.append_all(out, r.v);
            return Ok(Val {
                v: out,
                ty: l.ty.clone(),
            });
        }
        // `(a, b) + (c,)`: the elements of both.
        if op == BinOp::Add
            && let (Ty::Tuple(a), Ty::Tuple(b)) = (&l.ty, &r.ty)
        {
            let mut vs = Vec::new();
            for i in 0..a.len() {
                vs.push(self.b.tuple_get(l.v, i as u32));
            }
            for i in 0..b.len() {
                vs.push(self.b.tuple_get(r.v, i as u32));
            }
            let ty = Ty::Tuple(a.iter().chain(b).cloned().collect());
            return Ok(Val {
                v: self.b.tuple_new(&vs),
                ty,
            });
        }
        // `x.shape[:-1] + (n,)`: TorchScript adds a tuple of the element type to a list.
        if op == BinOp::Add
            && let (Ty::List(a), Ty::Tuple(b)) = (&l.ty, &r.ty)
            && b.iter().all(|t| t == a.as_ref())
        {
            let out = self.b.list_new(ir_type(a), &[]);
            self.append_all(out, l.v);
            for i in 0..b.len() {
                let x = self.b.tuple_get(r.v, i as u32);
                self.b.list_append(out, x);
            }
            return Ok(Val {
                v: out,
                ty: l.ty.clone(),
            });
        }
        // `xs * n`, `n * xs`: the list repeated (none for n <= 0).
        if op == BinOp::Mul
            && let (Ty::List(a), Ty::Int) | (Ty::Int, Ty::List(a)) = (&l.ty, &r.ty)
        {
            let (list, n) = if matches!(l.ty, Ty::List(_)) {
                (l.v, r.v)
            } else {
                (r.v, l.v)
            };
            let out = self.b.list_new(ir_type(a), &[]);
            self.for_range(n, |this, _| {
                this.append_all(out, list);
                Ok(())
            })?;
            return Ok(Val {
                v: out,
                ty: Ty::List(a.clone()),
            });
        }
        if !l.ty.is_scalar() || !r.ty.is_scalar() {
            if matches!(l.ty, Ty::Optional(_)) || matches!(r.ty, Ty::Optional(_)) {
                return Err(bad(self).with_help(
                    "the operand may be None: test it first (`if x is not None:`) or `assert x is not None`",
                ));
            }
            return Err(bad(self));
        }
        let both_bool = l.ty == Ty::Bool && r.ty == Ty::Bool;
        let is_int = |t: &Ty| matches!(t, Ty::Int | Ty::Bool);
        if both_bool && matches!(op, BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor) {
            let bop = match op {
                BinOp::BitAnd => BoolBinOp::And,
                BinOp::BitOr => BoolBinOp::Or,
                _ => BoolBinOp::Xor,
            };
            let v = self.b.bool_bin(bop, l.v, r.v);
            return Ok(Val { v, ty: Ty::Bool });
        }
        if is_int(&l.ty) && is_int(&r.ty) {
            let a = self.as_int(&l);
            let b = self.as_int(&r);
            if op == BinOp::Div {
                let v = self.b.int_truediv(a, b);
                return Ok(Val { v, ty: Ty::Float });
            }
            // A negative constant exponent gives a float in Python.
            if op == BinOp::Pow
                && let Some(k) = self.const_int_of(r.v)
                && k < 0
            {
                let x = self.b.cast(CastOp::IntToFloat, a);
                let y = self.b.cast(CastOp::IntToFloat, b);
                let v = self.b.float_bin(FloatBinOp::Pow, x, y);
                return Ok(Val { v, ty: Ty::Float });
            }
            let Some(iop) = pyjit_value::ops::int_operator(op) else {
                return Err(bad(self));
            };
            let v = self.b.int_bin(iop, a, b);
            return Ok(Val { v, ty: Ty::Int });
        }
        let Some(fop) = pyjit_value::ops::float_operator(op) else {
            return Err(bad(self));
        };
        let x = self.as_float(&l);
        let y = self.as_float(&r);
        let v = self.b.float_bin(fop, x, y);
        Ok(Val { v, ty: Ty::Float })
    }

    /// The value of an `int` constant op, if `v` is one.
    pub(crate) fn const_int_of(&self, v: Value) -> Option<i64> {
        let op = self.b.func.defining_op(v)?;
        match &self.b.func.op(op).kind {
            pyjit_ir::OpKind::Const(pyjit_ir::Const::Int(k)) => Some(*k),
            _ => None,
        }
    }

    fn unary(&mut self, op: UnaryOp, operand: &Expr, span: Span) -> R<Val> {
        // `-1` and `-0.5` are constants, not negations.
        if op == UnaryOp::Neg {
            match &operand.kind {
                ExprKind::Int(v) => {
                    if let Ok(k) = i64::try_from(-*v) {
                        let v = self.b.const_int(k);
                        return Ok(Val { v, ty: Ty::Int });
                    }
                }
                ExprKind::Float(f) => {
                    let v = self.b.const_float(-*f);
                    return Ok(Val { v, ty: Ty::Float });
                }
                _ => {}
            }
        }
        if op == UnaryOp::Not {
            let c = self.cond(operand)?;
            self.set_span(span);
            let v = self.b.not(c.v);
            return Ok(Val { v, ty: Ty::Bool });
        }
        let x = self.expr(operand)?;
        self.set_span(span);
        if x.ty == Ty::Tensor {
            return self.tensor_unary(op, x, span);
        }
        let v = match (op, &x.ty) {
            (UnaryOp::Pos, Ty::Int | Ty::Float) => return Ok(x),
            (UnaryOp::Neg, Ty::Int) => Val {
                v: self.b.int_un(IntUnOp::Neg, x.v),
                ty: Ty::Int,
            },
            (UnaryOp::Neg, Ty::Float) => Val {
                v: self.b.float_un(FloatUnOp::Neg, x.v),
                ty: Ty::Float,
            },
            (UnaryOp::Invert, Ty::Int) => Val {
                v: self.b.int_un(IntUnOp::Invert, x.v),
                ty: Ty::Int,
            },
            (UnaryOp::Neg | UnaryOp::Pos | UnaryOp::Invert, Ty::Bool) => {
                let i = self.b.cast(CastOp::BoolToInt, x.v);
                let v = match op {
                    UnaryOp::Neg => self.b.int_un(IntUnOp::Neg, i),
                    UnaryOp::Invert => self.b.int_un(IntUnOp::Invert, i),
                    _ => i,
                };
                Val { v, ty: Ty::Int }
            }
            (_, t) => {
                return Err(Diagnostic::error(format!(
                    "unsupported operand type for unary `{}`: `{t}`",
                    op.symbol()
                ))
                .with_primary(span, format!("`{t}`")));
            }
        };
        Ok(v)
    }

    fn ternary(
        &mut self,
        test: &Expr,
        body: &Expr,
        orelse: &Expr,
        span: Span,
        hint: Option<&Ty>,
    ) -> R<Val> {
        let c = self.cond(test)?;
        self.set_span(span);
        let then_r = self.b.new_region(&[]);
        let else_r = self.b.new_region(&[]);
        let saved = self.b.position_at_end(then_r);
        let saved_vars = self.st.vars.clone();
        self.refine(&c.if_true);
        let a = self.expr_hint(body, hint);
        self.st.vars = saved_vars.clone();
        self.b.position_at_end(else_r);
        self.refine(&c.if_false);
        let b = self.expr_hint(orelse, hint);
        self.st.vars = saved_vars;
        let (a, b) = match (a, b) {
            (Ok(a), Ok(b)) => (a, b),
            (Err(d), _) | (_, Err(d)) => {
                self.b.set_insert_point(saved);
                return Err(d);
            }
        };
        let Some(t) = unify(&a.ty, &b.ty) else {
            self.b.set_insert_point(saved);
            return Err(Diagnostic::error(format!(
                "the branches of the conditional expression have different types: `{}` and `{}`",
                a.ty, b.ty
            ))
            .with_primary(span, "conditional expression")
            .with_secondary(body.span, format!("`{}`", a.ty))
            .with_secondary(orelse.span, format!("`{}`", b.ty))
            .with_help("both branches must give values of one type (or a value and `None`)"));
        };
        self.b.position_at_end(then_r);
        let av = self.try_coerce(&a, &t);
        if let Some(av) = av {
            self.b.yield_(&[av]);
        }
        self.b.position_at_end(else_r);
        let bv = self.try_coerce(&b, &t);
        if let Some(bv) = bv {
            self.b.yield_(&[bv]);
        }
        self.b.set_insert_point(saved);
        let op = self.b.if_(c.v, then_r, else_r, &[ir_type(&t)]);
        Ok(Val {
            v: self.b.result(op),
            ty: t,
        })
    }

    // ---- subscripts ----

    fn subscript(&mut self, e: &Expr, value: &Expr, index: &Expr) -> R<Val> {
        let base = self.expr(value)?;
        self.set_span(e.span);
        match base.ty.clone() {
            Ty::Tensor => self.tensor_index(base, index, e.span),
            Ty::Dict(kt, vt) => {
                let k = self.dict_key(&kt, index)?;
                self.set_span(e.span);
                let v = self
                    .b
                    .insert1(pyjit_ir::OpKind::DictGet, &[base.v, k], ir_type(&vt));
                Ok(Val { v, ty: *vt })
            }
            Ty::List(elem) => {
                if let ExprKind::Slice { lower, upper, step } = &index.kind {
                    let k = match step.as_ref() {
                        None => 1,
                        Some(s) => match super::stmt::const_int_expr(s) {
                            Some(0) => {
                                return Err(Diagnostic::error("slice step cannot be zero")
                                    .with_primary(s.span, "zero step"));
                            }
                            Some(k) => k,
                            None => {
                                return Err(Diagnostic::error(
                                    "list slices with a step that is not an integer literal are not supported",
                                )
                                .with_primary(s.span, "step not known while compiling")
                                .with_help("write the step as a literal (`xs[::2]`, `xs[::-1]`) or copy with a loop"));
                            }
                        },
                    };
                    let elem = (*elem).clone();
                    return self.list_slice_step(
                        base.v,
                        elem,
                        lower.as_deref(),
                        upper.as_deref(),
                        k,
                        e.span,
                    );
                }
                let i = self.expr_hint(index, Some(&Ty::Int))?;
                let i = self.expect_int(i, index, "list index")?;
                self.set_span(e.span);
                let v = self.b.list_get(base.v, i);
                Ok(Val { v, ty: *elem })
            }
            Ty::Tuple(ts) => {
                // `t[1:]` with constant bounds: a new tuple of the selected elements.
                if let ExprKind::Slice { lower, upper, step } = &index.kind {
                    let n = ts.len() as i64;
                    let bound = |b: &Option<Box<Expr>>, dflt: i64| -> Option<i64> {
                        match b {
                            None => Some(dflt),
                            Some(e) => super::stmt::const_int_expr(e),
                        }
                    };
                    let (Some(a), Some(b), Some(st)) =
                        (bound(lower, 0), bound(upper, n), bound(step, 1))
                    else {
                        return Err(Diagnostic::error(
                            "tuple slice bounds must be integer constants",
                        )
                        .with_primary(index.span, "not constant")
                        .with_help("the elements of a tuple slice must be known at compile time"));
                    };
                    if st <= 0 {
                        return Err(Diagnostic::error(
                            "tuple slices need a positive constant step",
                        )
                        .with_primary(index.span, format!("step {st}")));
                    }
                    let clamp = |x: i64| if x < 0 { (x + n).max(0) } else { x.min(n) };
                    let (a, b) = (clamp(a), clamp(b));
                    let mut vs = Vec::new();
                    let mut tys = Vec::new();
                    let mut k = a;
                    while k < b {
                        vs.push(self.b.tuple_get(base.v, k as u32));
                        tys.push(ts[k as usize].clone());
                        k += st;
                    }
                    let v = self.b.tuple_new(&vs);
                    return Ok(Val {
                        v,
                        ty: Ty::Tuple(tys),
                    });
                }
                let Some(k) = super::stmt::const_int_expr(index) else {
                    return Err(Diagnostic::error("tuple index must be an integer constant")
                        .with_primary(index.span, "not a constant")
                        .with_help("tuples are heterogeneous: index them with a literal like `t[0]`; use a `List` for indexing by a variable"));
                };
                let n = ts.len() as i64;
                let kk = if k < 0 { k + n } else { k };
                if kk < 0 || kk >= n {
                    return Err(
                        Diagnostic::error(format!("tuple index {k} is out of range"))
                            .with_primary(index.span, format!("the tuple has {n} elements")),
                    );
                }
                let v = self.b.tuple_get(base.v, kk as u32);
                Ok(Val {
                    v,
                    ty: ts[kk as usize].clone(),
                })
            }
            other => Err(self.with_param_help(
                Diagnostic::error(format!("a value of type `{other}` cannot be indexed"))
                    .with_primary(value.span, format!("`{other}`")),
                value,
                &other,
                "List[int]",
            )),
        }
    }

    /// Appends every element of list `src` to list `out` (a loop).
    pub(crate) fn append_all(&mut self, out: Value, src: Value) {
        let n = self.b.list_len(src);
        let appended = self.for_range(n, |this, i| {
            let x = this.b.list_get(src, i);
            this.b.list_append(out, x);
            Ok(())
        });
        debug_assert!(appended.is_ok(), "list_get and list_append do not fail");
    }

    /// `xs[a:b:k]` for a literal step `k` (≠ 0; 1 is `xs[a:b]`): a new list of the elements,
    /// built by a loop, with Python's bounds: negative bounds count from the end, then clamp to
    /// `[0, n]` (`k > 0`) or `[-1, n - 1]` (`k < 0`); the defaults are the ends in the step's
    /// direction.
    fn list_slice_step(
        &mut self,
        list: Value,
        elem: Ty,
        lower: Option<&Expr>,
        upper: Option<&Expr>,
        k: i64,
        span: Span,
    ) -> R<Val> {
        let bound = |this: &mut Self, e: Option<&Expr>| -> R<Option<Value>> {
            match e {
                None => Ok(None),
                Some(e) => {
                    let v = this.expr_hint(e, Some(&Ty::Int))?;
                    Ok(Some(this.expect_int(v, e, "slice bound")?))
                }
            }
        };
        let a = bound(self, lower)?;
        let b = bound(self, upper)?;
        self.set_span(span);
        let n = self.b.list_len(list);
        let zero = self.b.const_int(0);
        let one = (k != 1).then(|| self.b.const_int(1));
        let (lo, hi) = match one {
            Some(one) if k < 0 => {
                let m1 = self.b.const_int(-1);
                let last = self.b.int_bin(IntBinOp::Sub, n, one);
                (m1, last)
            }
            _ => (zero, n),
        };
        let clamp = |this: &mut Self, v: Value| -> Value {
            let neg = this.b.int_cmp(ICmp::Lt, v, zero);
            let plus = this.b.int_bin(IntBinOp::Add, v, n);
            let v = this.b.select(neg, plus, v);
            let under = this.b.int_cmp(ICmp::Lt, v, lo);
            let v = this.b.select(under, lo, v);
            let over = this.b.int_cmp(ICmp::Gt, v, hi);
            this.b.select(over, hi, v)
        };
        let (start_default, stop_default) = if k > 0 { (zero, n) } else { (hi, lo) };
        let start = match a {
            Some(a) => clamp(self, a),
            None => start_default,
        };
        let stop = match b {
            Some(b) => clamp(self, b),
            None => stop_default,
        };
        // trip = max(0, ceil((stop - start) / k)); for k = 1 just stop - start (a loop with a
        // negative trip count runs no iteration).
        let trip = if k == 1 {
            self.b.int_bin(IntBinOp::Sub, stop, start)
        } else {
            let kv = self.b.const_int(k.abs());
            let dist = if k > 0 {
                self.b.int_bin(IntBinOp::Sub, stop, start)
            } else {
                self.b.int_bin(IntBinOp::Sub, start, stop)
            };
            let km1 = self.b.const_int(k.abs() - 1);
            let num = self.b.int_bin(IntBinOp::Add, dist, km1);
            let q = self.b.int_bin(IntBinOp::FloorDiv, num, kv);
            let negq = self.b.int_cmp(ICmp::Lt, q, zero);
            self.b.select(negq, zero, q)
        };
        let out = self.b.list_new(ir_type(&elem), &[]);
        self.for_range(trip, |this, j| {
            let off = if k == 1 {
                j
            } else {
                let kc = this.b.const_int(k);
                this.b.int_bin(IntBinOp::Mul, j, kc)
            };
            let i = this.b.int_bin(IntBinOp::Add, start, off);
            let x = this.b.list_get(list, i);
            this.b.list_append(out, x);
            Ok(())
        })?;
        Ok(Val {
            v: out,
            ty: Ty::list(elem),
        })
    }

    // ---- calls ----

    fn call(&mut self, e: &Expr, func: &Expr, args: &[Expr], kws: &[Keyword]) -> R<Val> {
        match &func.kind {
            ExprKind::Name(n) if !self.st.vars.contains_key(n) => {
                if let Some(&idx) = self.m.info.fn_index.get(n) {
                    return self.call_user(e, idx, args, kws);
                }
                if BUILTINS.contains(&n.as_str()) {
                    return self.call_builtin(e, n, args, kws);
                }
                if let Some(canon) = self.m.info.imports.canonical(n) {
                    return self.call_qualified(e, &canon, func.span, args, kws);
                }
                if is_exception_name(n) {
                    return Err(
                        Diagnostic::error(format!("exception `{n}` can only be raised"))
                            .with_primary(e.span, "exception object")
                            .with_help(format!("write `raise {n}(\"message\")`")),
                    );
                }
                let mut d = Diagnostic::error(format!("unknown function `{n}`")).with_primary(
                    func.span,
                    "not a function of this file, a builtin or an imported name",
                );
                d = match self.suggest_name(n) {
                    Some(s) => d.with_help(format!("did you mean `{s}`?")),
                    None => d.with_help(format!(
                        "define `{n}` in this file, or use an op of `torch`, `F`, `math` or `np`"
                    )),
                };
                Err(d)
            }
            ExprKind::Name(n)
                if matches!(
                    self.st.vars.get(n),
                    Some(Binding::Undef {
                        reason: super::Undefined::Poisoned,
                        ..
                    })
                ) =>
            {
                Err(Diagnostic::reported_elsewhere())
            }
            ExprKind::Name(n) => Err(Diagnostic::error(format!(
                "`{n}` is a variable, not a function"
            ))
            .with_primary(func.span, "cannot call a value")),
            ExprKind::Attribute { value, attr } => {
                if let Some(dotted) = func.dotted_name() {
                    let first = dotted.split('.').next().unwrap_or("");
                    if !self.st.vars.contains_key(first)
                        && let Some(canon) = self.m.info.imports.canonical(&dotted)
                    {
                        return self.call_qualified(e, &canon, func.span, args, kws);
                    }
                }
                let recv = self.expr(value)?;
                self.set_span(e.span);
                self.call_method(e, recv, value, &attr.name, attr.span, args, kws)
            }
            _ => Err(Diagnostic::error("this expression cannot be called")
                .with_primary(func.span, "not a function")),
        }
    }

    /// Binds call arguments to a module function's parameters (positional, keyword, defaults).
    fn call_user(&mut self, e: &Expr, idx: usize, args: &[Expr], kws: &[Keyword]) -> R<Val> {
        let Some(sig) = self.m.sigs[idx].clone() else {
            return Err(Diagnostic::reported_elsewhere());
        };
        let mut slots: Vec<Option<Val>> = vec![None; sig.params.len()];
        let positional: Vec<usize> = (0..sig.params.len())
            .filter(|&i| !sig.params[i].kwonly)
            .collect();
        if args.len() > positional.len() {
            return Err(Diagnostic::error(format!(
                "`{}` takes {} positional argument{} but {} were given",
                sig.name,
                positional.len(),
                if positional.len() == 1 { "" } else { "s" },
                args.len()
            ))
            .with_primary(args[positional.len()].span, "unexpected argument")
            .with_secondary(sig.name_span, "function defined here")
            .with_help("remove the extra arguments, or add parameters to the function"));
        }
        for (a, &slot) in args.iter().zip(&positional) {
            let hint = sig.params[slot].ty.clone();
            let v = self.expr_hint(a, Some(&hint))?;
            self.m.note_call_type(&sig, slot, &v.ty);
            slots[slot] = Some(v);
        }
        for k in kws {
            let Some(name) = &k.arg else { continue };
            let Some(i) = sig.params.iter().position(|p| p.name == name.name) else {
                let names: Vec<String> =
                    sig.params.iter().map(|p| format!("`{}`", p.name)).collect();
                return Err(Diagnostic::error(format!(
                    "`{}` has no parameter named `{}`",
                    sig.name, name.name
                ))
                .with_primary(name.span, "unknown keyword argument")
                .with_secondary(sig.name_span, "function defined here")
                .with_help(format!("its parameters are {}", names.join(", "))));
            };
            if slots[i].is_some() {
                return Err(Diagnostic::error(format!(
                    "`{}` got multiple values for parameter `{}`",
                    sig.name, name.name
                ))
                .with_primary(k.span, "given again here"));
            }
            let hint = sig.params[i].ty.clone();
            let v = self.expr_hint(&k.value, Some(&hint))?;
            self.m.note_call_type(&sig, i, &v.ty);
            slots[i] = Some(v);
        }
        // After the arguments: their types are noted even when the callee's body fails (as it
        // does when an unannotated parameter it uses as an int is still a Tensor).
        let ret = self.m.ret_type(idx, e.span)?;
        let mut operands = Vec::new();
        for (i, p) in sig.params.iter().enumerate() {
            let v = match slots[i].take() {
                Some(v) => {
                    let arg_span = arg_span(args, kws, &positional, i, &p.name).unwrap_or(e.span);
                    let fname = sig.name.clone();
                    let pname = p.name.clone();
                    let r = self.coerce(v, &p.ty, arg_span, |got, want| {
                        format!("argument `{pname}` of `{fname}` must be `{want}`, found `{got}`")
                    });
                    match r {
                        Ok(v) => v,
                        Err(mut d) => {
                            d = d.with_secondary(p.span, "parameter declared here");
                            d = if p.from_call {
                                d.with_help(format!(
                                    "`{}` has no annotation, so it takes the type of the arguments passed to it (`{}`); a function has one signature here: pass a `{}` at every call, or annotate `{}`",
                                    p.name, p.ty, p.ty, p.name
                                ))
                            } else if !p.annotated {
                                d.with_help(format!(
                                    "parameter `{}` has no annotation, so it is a Tensor; annotate it?",
                                    p.name
                                ))
                            } else {
                                d.with_help(format!(
                                    "pass a `{}` (convert with `int(...)`/`float(...)`, or `torch.tensor(...)` for a tensor), or change the annotation of `{}`",
                                    p.ty, p.name
                                ))
                            };
                            return Err(d);
                        }
                    }
                }
                None => match &p.default {
                    None if p.tensor_default.is_some() => {
                        let d = p.tensor_default.clone().unwrap_or_else(|| e.clone());
                        let v = self.expr(&d)?;
                        self.coerce(v, &p.ty, p.span, |got, want| {
                            format!(
                                "default value of `{}` has type `{got}`, not `{want}`",
                                p.name
                            )
                        })?
                    }
                    Some(c) => {
                        let c = c.clone();
                        let v = self.module_const(&c);
                        self.coerce(v, &p.ty, p.span, |got, want| {
                            format!(
                                "default value of `{}` has type `{got}`, not `{want}`",
                                p.name
                            )
                        })?
                    }
                    None => {
                        return Err(Diagnostic::error(format!(
                            "`{}` is missing argument `{}`",
                            sig.name, p.name
                        ))
                        .with_primary(e.span, format!("missing `{}`", p.name))
                        .with_secondary(p.span, "parameter declared here")
                        .with_help(format!(
                            "pass `{}`, or give the parameter a default value",
                            p.name
                        )));
                    }
                },
            };
            operands.push(v);
        }
        self.set_span(e.span);
        let v = self.b.call(self.m.func_ids[idx], &operands, ir_type(&ret));
        Ok(Val { v, ty: ret })
    }

    fn call_builtin(&mut self, e: &Expr, n: &str, args: &[Expr], kws: &[Keyword]) -> R<Val> {
        if n == "print" {
            let mut vs = Vec::new();
            for a in args {
                let v = match &a.kind {
                    ExprKind::Str(_) | ExprKind::FString(_) => self.message(a)?,
                    // `print` shows other values itself, as PyTorch does.
                    _ => {
                        let v = self.expr(a)?;
                        match self.numpy_text(&v.ty) {
                            true => self.b.str_numpy(v.v),
                            false => v.v,
                        }
                    }
                };
                vs.push(v);
            }
            if let Some(k) = kws.first() {
                return Err(
                    Diagnostic::error("keyword arguments of `print` are not supported")
                        .with_primary(k.span, "keyword argument")
                        .with_help("build the line with an f-string instead of `sep=`/`end=`"),
                );
            }
            self.set_span(e.span);
            self.b.print(&vs);
            let v = self.b.const_none();
            return Ok(Val { v, ty: Ty::None });
        }
        if n == "isinstance" {
            let [x, t] = args else {
                return Err(Diagnostic::error("`isinstance` takes 2 arguments")
                    .with_primary(e.span, "wrong number of arguments"));
            };
            let v = self.expr(x)?;
            let types: Vec<&Expr> = match &t.kind {
                ExprKind::Tuple(ts) => ts.iter().collect(),
                _ => vec![t],
            };
            let mut any = false;
            for te in types {
                let ty = parse_annotation(te, &self.m.info.imports)?;
                any |= ty == v.ty;
            }
            let r = self.b.const_bool(any);
            return Ok(Val { v: r, ty: Ty::Bool });
        }
        // `float("inf")`, `float("-inf")`, `float("nan")`: constants.
        if n == "float"
            && let [a] = args
            && let ExprKind::Str(text) = &a.kind
        {
            let f = match text.trim().to_ascii_lowercase().as_str() {
                "inf" | "+inf" | "infinity" => Some(f64::INFINITY),
                "-inf" | "-infinity" => Some(f64::NEG_INFINITY),
                "nan" | "+nan" | "-nan" => Some(f64::NAN),
                t => t.parse::<f64>().ok(),
            };
            return match f {
                Some(f) => Ok(Val {
                    v: self.b.const_float(f),
                    ty: Ty::Float,
                }),
                None => Err(
                    Diagnostic::error(format!("`float({text:?})` is not a number"))
                        .with_primary(a.span, "cannot convert this string"),
                ),
            };
        }
        if let Some(k) = kws.first() {
            return Err(
                Diagnostic::error(format!("`{n}` takes no keyword arguments"))
                    .with_primary(k.span, "keyword argument")
                    .with_help(format!("pass the arguments by position: `{n}(...)`")),
            );
        }
        let vals = args.iter().map(|a| self.expr(a)).collect::<R<Vec<_>>>()?;
        self.set_span(e.span);
        let arity_err = |want: &str| {
            Diagnostic::error(format!("`{n}` takes {want}, got {}", args.len()))
                .with_primary(e.span, "wrong number of arguments")
        };
        match n {
            // `list(x.shape)`, `list(t)` of a homogeneous tuple: a fresh list.
            "list" => {
                let [x] = vals.as_slice() else {
                    return Err(arity_err("1 argument"));
                };
                match &x.ty {
                    Ty::List(elem) => {
                        let out = self.b.list_new(ir_type(elem), &[]);
                        self.append_all(out, x.v);
                        Ok(Val {
                            v: out,
                            ty: x.ty.clone(),
                        })
                    }
                    Ty::Tuple(ts) if !ts.is_empty() && ts.iter().all(|t| *t == ts[0]) => {
                        let items: Vec<Value> = (0..ts.len())
                            .map(|i| self.b.tuple_get(x.v, i as u32))
                            .collect();
                        let out = self.b.list_new(ir_type(&ts[0]), &items);
                        Ok(Val {
                            v: out,
                            ty: Ty::list(ts[0].clone()),
                        })
                    }
                    Ty::Tensor => {
                        // `list(t)`: the rows
                        let n = self.tensor_len(x.v)?;
                        let out = self.b.list_new(Type::tensor(), &[]);
                        self.for_range(n, |this, i| {
                            let row = this.tensor_row(x.v, i)?;
                            this.b.list_append(out, row);
                            Ok(())
                        })?;
                        Ok(Val {
                            v: out,
                            ty: Ty::list(Ty::Tensor),
                        })
                    }
                    other => Err(
                        Diagnostic::error(format!("`list` of a value of type `{other}`"))
                            .with_primary(e.span, "not a list, a tuple of one type or a tensor"),
                    ),
                }
            }
            "len" => {
                let [x] = vals.as_slice() else {
                    return Err(arity_err("1 argument"));
                };
                let v = match &x.ty {
                    Ty::List(_) => self.b.list_len(x.v),
                    Ty::Dict(..) => self.b.insert1(pyjit_ir::OpKind::DictLen, &[x.v], Type::Int),
                    Ty::Tuple(ts) => self.b.const_int(ts.len() as i64),
                    Ty::Tensor => self.tensor_len(x.v)?,
                    other => {
                        return Err(Diagnostic::error(format!(
                            "`len` of a value of type `{other}`"
                        ))
                        .with_primary(args[0].span, format!("`{other}` has no length")));
                    }
                };
                Ok(Val { v, ty: Ty::Int })
            }
            "int" | "float" | "bool" => {
                let [x] = vals.as_slice() else {
                    return Err(arity_err("1 argument"));
                };
                // `int(t.item())`: exact (read as an int, not through a float).
                if let ExprKind::Call {
                    func,
                    args: a,
                    keywords,
                } = &args[0].kind
                    && let ExprKind::Attribute { value, attr } = &func.kind
                    && attr.name == "item"
                    && a.is_empty()
                    && keywords.is_empty()
                    && n != "float"
                {
                    let recv = self.expr(value)?;
                    if recv.ty == Ty::Tensor {
                        self.set_span(e.span);
                        let (k, ty) = if n == "int" {
                            (ScalarTy::Int, Ty::Int)
                        } else {
                            (ScalarTy::Bool, Ty::Bool)
                        };
                        let v = self.item_of(k, recv.v)?;
                        return Ok(Val { v, ty });
                    }
                }
                self.convert_scalar(n, x.clone(), &args[0], e.span)
            }
            "abs" => {
                let [x] = vals.as_slice() else {
                    return Err(arity_err("1 argument"));
                };
                match x.ty {
                    Ty::Int => Ok(Val {
                        v: self.b.int_un(IntUnOp::Abs, x.v),
                        ty: Ty::Int,
                    }),
                    Ty::Float => Ok(Val {
                        v: self.b.float_un(FloatUnOp::Abs, x.v),
                        ty: Ty::Float,
                    }),
                    Ty::Bool => {
                        let i = self.b.cast(CastOp::BoolToInt, x.v);
                        Ok(Val { v: i, ty: Ty::Int })
                    }
                    Ty::Tensor => self.tensor_fn_by_name("abs", vec![x.clone()], e.span),
                    ref other => Err(Diagnostic::error(format!("`abs` of `{other}`"))
                        .with_primary(args[0].span, "not a number")),
                }
            }
            "round" => match vals.as_slice() {
                [x] => match x.ty {
                    Ty::Float => Ok(Val {
                        v: self.b.math(MathFn::Round, &[x.v]),
                        ty: Ty::Int,
                    }),
                    Ty::Int => Ok(x.clone()),
                    Ty::Tensor => self.tensor_fn_by_name("round", vec![x.clone()], e.span),
                    ref other => Err(Diagnostic::error(format!("`round` of `{other}`"))
                        .with_primary(args[0].span, "not a number")),
                },
                _ => Err(arity_err(
                    "1 argument (`round(x, ndigits)` is not supported)",
                )),
            },
            "min" | "max" => {
                let is_max = n == "max";
                match vals.as_slice() {
                    [] => Err(arity_err("at least 1 argument")),
                    [x] => match &x.ty {
                        Ty::List(elem) if elem.is_number() => {
                            let elem = (**elem).clone();
                            self.list_fold(
                                x.v,
                                elem,
                                if is_max { Fold::Max } else { Fold::Min },
                                e.span,
                            )
                        }
                        Ty::Tensor => self.tensor_fn_by_name(n, vec![x.clone()], e.span),
                        other => Err(Diagnostic::error(format!("`{n}` of a single `{other}`"))
                            .with_primary(
                                args[0].span,
                                "expected a list of numbers or several numbers",
                            )),
                    },
                    many => {
                        let mut acc = many[0].clone();
                        for (x, a) in many[1..].iter().zip(&args[1..]) {
                            acc = self.scalar_minmax(is_max, acc, x.clone(), a.span, e.span)?;
                        }
                        Ok(acc)
                    }
                }
            }
            "pow" => match vals.as_slice() {
                [a, b] => self.binop(BinOp::Pow, a.clone(), b.clone(), e.span),
                _ => Err(arity_err(
                    "2 arguments (three-argument `pow` is not supported)",
                )),
            },
            "divmod" => match vals.as_slice() {
                [a, b] => {
                    let q = self.binop(BinOp::FloorDiv, a.clone(), b.clone(), e.span)?;
                    let r = self.binop(BinOp::Mod, a.clone(), b.clone(), e.span)?;
                    let v = self.b.tuple_new(&[q.v, r.v]);
                    Ok(Val {
                        v,
                        ty: Ty::Tuple(vec![q.ty, r.ty]),
                    })
                }
                _ => Err(arity_err("2 arguments")),
            },
            "sum" => {
                match vals.as_slice() {
                    [x] => match &x.ty {
                        Ty::List(elem) if elem.is_number() => {
                            let elem = (**elem).clone();
                            self.list_fold(x.v, elem, Fold::Sum, e.span)
                        }
                        other => Err(Diagnostic::error(format!(
                            "`sum` of `{other}` is not supported"
                        ))
                        .with_primary(args[0].span, format!("`{other}`"))
                        .with_help("`sum` works on lists of numbers; for tensors use `x.sum()`")),
                    },
                    _ => Err(arity_err("1 argument")),
                }
            }
            "range" | "enumerate" | "zip" | "reversed" => Err(Diagnostic::error(format!(
                "`{n}(...)` can only be used as the iterable of a `for` loop"
            ))
            .with_primary(e.span, "not in a `for` loop")
            .with_help("write `for i in range(n):`; to build a list, append in a loop")),
            _ => Err(Diagnostic::error(format!("unknown builtin `{n}`"))
                .with_primary(e.span, "not supported")),
        }
    }

    fn scalar_minmax(&mut self, is_max: bool, a: Val, b: Val, bspan: Span, span: Span) -> R<Val> {
        let (a, b, ty) = match (&a.ty, &b.ty) {
            (Ty::Int, Ty::Int) => (a.v, b.v, Ty::Int),
            (x, y) if x.is_number() && y.is_number() => {
                (self.as_float(&a), self.as_float(&b), Ty::Float)
            }
            (x, y) => {
                return Err(Diagnostic::error(format!(
                    "`{}` of `{x}` and `{y}` is not supported",
                    if is_max { "max" } else { "min" }
                ))
                .with_primary(bspan, format!("`{y}`"))
                .with_note(format!("in {}", if is_max { "max" } else { "min" }))
                .with_help("for tensors use `torch.maximum` / `torch.minimum`"));
            }
        };
        self.set_span(span);
        let cmp = if is_max { ICmp::Gt } else { ICmp::Lt };
        // Python's max keeps the first of equal values: b wins only if strictly better.
        let c = if ty == Ty::Int {
            self.b.int_cmp(cmp, b, a)
        } else {
            self.b.float_cmp(cmp, b, a)
        };
        let v = self.b.select(c, b, a);
        Ok(Val { v, ty })
    }

    /// `sum`/`min`/`max` of a list of numbers, as a loop.
    fn list_fold(&mut self, list: Value, elem: Ty, fold: Fold, span: Span) -> R<Val> {
        self.set_span(span);
        let n = self.b.list_len(list);
        let t = self.b.const_bool(true);
        let init = match fold {
            Fold::Sum => match elem {
                Ty::Float => self.b.const_float(0.0),
                _ => self.b.const_int(0),
            },
            Fold::Min | Fold::Max => {
                let z = self.b.const_int(0);
                let one = self.b.const_int(1);
                let ok = self.b.int_cmp(ICmp::Ge, n, one);
                let msg = self.b.const_str(if fold == Fold::Max {
                    "max() arg is an empty sequence"
                } else {
                    "min() arg is an empty sequence"
                });
                self.b.check("ValueError", ok, msg);
                self.b.list_get(list, z)
            }
        };
        let ty = if fold == Fold::Sum && elem == Ty::Bool {
            Ty::Int
        } else {
            elem.clone()
        };
        let body = self.b.new_region(&[Type::Int, ir_type(&ty)]);
        let params = self.b.func.region_params(body).to_vec();
        let saved = self.b.position_at_end(body);
        let x = self.b.list_get(list, params[0]);
        let acc = Val {
            v: params[1],
            ty: ty.clone(),
        };
        let xv = Val { v: x, ty: elem };
        let r = match fold {
            Fold::Sum => self.binop(BinOp::Add, acc, xv, span),
            Fold::Max => self.scalar_minmax(true, acc, xv, span, span),
            Fold::Min => self.scalar_minmax(false, acc, xv, span, span),
        };
        let r = match r {
            Ok(r) => r,
            Err(d) => {
                self.b.set_insert_point(saved);
                return Err(d);
            }
        };
        let tt = self.b.const_bool(true);
        self.b.yield_(&[tt, r.v]);
        self.b.set_insert_point(saved);
        let op = self.b.loop_(n, t, &[init], body);
        Ok(Val {
            v: self.b.result(op),
            ty,
        })
    }

    /// `int(x)`, `float(x)`, `bool(x)`.
    fn convert_scalar(&mut self, n: &str, x: Val, arg: &Expr, span: Span) -> R<Val> {
        self.set_span(span);
        let v = match (n, &x.ty) {
            ("int", Ty::Int) | ("float", Ty::Float) | ("bool", Ty::Bool) => x.v,
            ("int", Ty::Float) => self.b.cast(CastOp::FloatToInt, x.v),
            ("int", Ty::Bool) => self.b.cast(CastOp::BoolToInt, x.v),
            ("float", Ty::Int) => self.b.cast(CastOp::IntToFloat, x.v),
            ("float", Ty::Bool) => self.b.cast(CastOp::BoolToFloat, x.v),
            ("bool", Ty::Int) => self.b.cast(CastOp::IntToBool, x.v),
            ("bool", Ty::Float) => self.b.cast(CastOp::FloatToBool, x.v),
            ("int", Ty::Tensor) => self.scalar_of(ScalarTy::Int, x.v)?,
            ("float", Ty::Tensor) => self.scalar_of(ScalarTy::Float, x.v)?,
            ("bool", Ty::Tensor) => self.scalar_of(ScalarTy::Bool, x.v)?,
            ("bool", Ty::List(_)) => self.truthy(x.clone(), arg)?,
            (_, other) => {
                return Err(Diagnostic::error(format!(
                    "`{n}()` of a value of type `{other}` is not supported"
                ))
                .with_primary(arg.span, format!("`{other}`")));
            }
        };
        let ty = match n {
            "int" => Ty::Int,
            "float" => Ty::Float,
            _ => Ty::Bool,
        };
        Ok(Val { v, ty })
    }

    /// A call through an imported module: `torch.*`, `F.*`, `math.*`, `np.*`, `torch.jit.annotate`.
    fn call_qualified(
        &mut self,
        e: &Expr,
        canon: &str,
        fspan: Span,
        args: &[Expr],
        kws: &[Keyword],
    ) -> R<Val> {
        // TorchScript's answers: a scripted function is scripting and not tracing (and an `if`
        // on them keeps only the live branch, see `static_condition`).
        if matches!(canon, "torch.jit.is_scripting" | "torch.jit.is_tracing") && args.is_empty() {
            let v = self.b.const_bool(canon == "torch.jit.is_scripting");
            return Ok(Val { v, ty: Ty::Bool });
        }
        if canon == "torch.device" {
            let [a] = args else {
                return Err(Diagnostic::error("`torch.device` takes one argument here")
                    .with_primary(e.span, "wrong number of arguments")
                    .with_help("write `torch.device(\"cpu\")`"));
            };
            let d = self.expr(a)?;
            self.check_device(&d, a.span)?;
            let v = self.b.const_str("cpu");
            return Ok(Val { v, ty: Ty::Device });
        }
        if canon == "torch.jit.annotate" {
            let [t, v] = args else {
                return Err(
                    Diagnostic::error("`torch.jit.annotate` takes a type and a value")
                        .with_primary(e.span, "wrong number of arguments"),
                );
            };
            let ty = parse_annotation(t, &self.m.info.imports)?;
            let val = self.expr_hint(v, Some(&ty))?;
            let v = self.coerce(val, &ty, v.span, |got, want| {
                format!("`torch.jit.annotate` to `{want}` of a value of type `{got}`")
            })?;
            return Ok(Val { v, ty });
        }
        if let Some(f) = canon.strip_prefix("math.") {
            return self.call_math(e, f, fspan, args, kws);
        }
        self.call_tensor_fn(e, canon, fspan, args, kws)
    }

    fn call_math(
        &mut self,
        e: &Expr,
        f: &str,
        fspan: Span,
        args: &[Expr],
        kws: &[Keyword],
    ) -> R<Val> {
        if let Some(k) = kws.first() {
            return Err(
                Diagnostic::error(format!("`math.{f}` takes no keyword arguments"))
                    .with_primary(k.span, "keyword argument"),
            );
        }
        let vals = args.iter().map(|a| self.expr(a)).collect::<R<Vec<_>>>()?;
        self.set_span(e.span);
        // `math.log(x, base)` is `log(x) / log(base)`, as CPython computes it.
        if f == "log"
            && let [x, base] = vals.as_slice()
            && x.ty.is_scalar()
            && base.ty.is_scalar()
        {
            let xf = self.as_float(x);
            let bf = self.as_float(base);
            let lx = self.b.math(MathFn::Log, &[xf]);
            let lb = self.b.math(MathFn::Log, &[bf]);
            let v = self.b.float_bin(FloatBinOp::Div, lx, lb);
            return Ok(Val { v, ty: Ty::Float });
        }
        let Some(m) = MathFn::from_name(f) else {
            return Err(Diagnostic::error(format!("unknown function `math.{f}`"))
                .with_primary(fspan, "not a supported `math` function")
                .with_help("supported: sqrt exp log log2 log10 sin cos tan tanh floor ceil fabs pow isnan isinf and more"));
        };
        let (arity, ty) = m.signature();
        if vals.len() != arity {
            return Err(Diagnostic::error(format!(
                "`math.{f}` takes {arity} argument{}, got {}",
                if arity == 1 { "" } else { "s" },
                vals.len()
            ))
            .with_primary(e.span, "wrong number of arguments"));
        }
        let mut ops = Vec::new();
        for (v, a) in vals.iter().zip(args) {
            if !v.ty.is_scalar() {
                return Err(self.with_param_help(
                    Diagnostic::error(format!("`math.{f}` needs a number, found `{}`", v.ty))
                        .with_primary(a.span, format!("`{}`", v.ty))
                        .with_help(format!("for tensors use `torch.{f}`")),
                    a,
                    &v.ty,
                    "float",
                ));
            }
            ops.push(self.as_float(v));
        }
        // math.floor/ceil/trunc of an int is the int itself.
        if matches!(m, MathFn::Floor | MathFn::Ceil | MathFn::Trunc) && vals[0].ty == Ty::Int {
            return Ok(vals[0].clone());
        }
        let v = self.b.math(m, &ops);
        Ok(Val {
            v,
            ty: super::from_ir_type(&ty),
        })
    }

    // ---- messages ----

    /// A message for `raise`/`assert`/`print`: strings, f-strings, or any value formatted as
    /// Python's `str()`.
    pub fn message(&mut self, e: &Expr) -> R<Value> {
        // `"... {} ...".format(a, b)`: Python's str.format with positional fields.
        if let ExprKind::Call {
            func,
            args,
            keywords,
        } = &e.kind
            && let ExprKind::Attribute { value, attr } = &func.kind
            && attr.name == "format"
            && let ExprKind::Str(template) = &value.kind
            && keywords.is_empty()
        {
            return self.str_format(template, args, e.span);
        }
        match &e.kind {
            ExprKind::Str(s) => Ok(self.b.const_str(s.clone())),
            ExprKind::FString(parts) => {
                let mut vs = Vec::new();
                self.fstring_parts(parts, &mut vs)?;
                self.set_span(e.span);
                Ok(match vs.as_slice() {
                    [] => self.b.const_str(""),
                    [one] => *one,
                    _ => self.b.str_concat(&vs),
                })
            }
            _ => {
                let v = self.expr(e)?;
                Ok(self.str_value(v))
            }
        }
    }

    /// Whether `str()` of a `ty` value is NumPy's text rather than PyTorch's: an array or dtype
    /// in a NumPy-style module.
    fn numpy_text(&self, ty: &Ty) -> bool {
        self.m.info.numpy_mode() && ty.shows_array()
    }

    /// `str(v)` as the module's dialect shows it: in a NumPy-style module arrays and dtypes as
    /// NumPy writes them (`str.numpy`), otherwise as PyTorch does (`str.of`).
    pub(crate) fn str_value(&mut self, v: Val) -> Value {
        if v.ty == Ty::Str {
            v.v
        } else if self.numpy_text(&v.ty) {
            self.b.str_numpy(v.v)
        } else {
            self.b.str_of(v.v, "")
        }
    }

    /// `template.format(args...)`: `{}`, `{0}` and `{:spec}` / `{0:spec}` fields, `{{`/`}}`
    /// escapes.
    fn str_format(&mut self, template: &str, args: &[Expr], span: Span) -> R<Value> {
        let vals = args.iter().map(|a| self.expr(a)).collect::<R<Vec<_>>>()?;
        self.set_span(span);
        let bad = |what: &str| {
            Diagnostic::error(format!("unsupported format string: {what}"))
                .with_primary(span, "in this `str.format` call")
                .with_help("use `{}`, `{0}` or `{:.3f}` fields, or an f-string")
        };
        let pieces = pyjit_value::format::parse_template(template).map_err(|m| bad(&m))?;
        let mut parts = Vec::new();
        for p in pieces {
            parts.push(match p {
                pyjit_value::format::TemplatePiece::Literal(l) => self.b.const_str(l),
                pyjit_value::format::TemplatePiece::Field(idx, spec) => {
                    let Some(v) = vals.get(idx) else {
                        return Err(bad(&format!("no argument for field {idx}")));
                    };
                    if spec.is_empty() {
                        self.str_value(v.clone())
                    } else {
                        self.b.str_of(v.v, spec)
                    }
                }
            });
        }
        if parts.is_empty() {
            parts.push(self.b.const_str(""));
        }
        Ok(match parts.as_slice() {
            [one] => *one,
            _ => self.b.str_concat(&parts),
        })
    }

    fn fstring_parts(&mut self, parts: &[FStringPart], out: &mut Vec<Value>) -> R<()> {
        for p in parts {
            match p {
                FStringPart::Literal(s) => {
                    if !s.is_empty() {
                        out.push(self.b.const_str(s.clone()));
                    }
                }
                FStringPart::Expr(field) => {
                    if field.debug {
                        let src = self.m.file.slice(field.expr.span).to_string();
                        out.push(self.b.const_str(format!("{src}=")));
                    }
                    let mut spec = String::new();
                    for sp in &field.format_spec {
                        match sp {
                            FStringPart::Literal(s) => spec.push_str(s),
                            FStringPart::Expr(nested) => {
                                return Err(Diagnostic::error(
                                    "nested replacement fields in a format spec are not supported",
                                )
                                .with_primary(nested.expr.span, "computed format spec")
                                .with_help("write the format spec literally, like `{x:.3f}`"));
                            }
                        }
                    }
                    // `{x!r:>8}` is `str.of["!r:>8"]`; `{x=}` without conversion or spec is
                    // `{x=!r}`, as in Python.
                    let conversion = match field.conversion {
                        Some(c) => Some(c),
                        None if field.debug && spec.is_empty() => Some('r'),
                        None => None,
                    };
                    let spec = match conversion {
                        Some(c) if spec.is_empty() => format!("!{c}"),
                        Some(c) => format!("!{c}:{spec}"),
                        None => spec,
                    };
                    let v = self.expr(&field.expr)?;
                    let s = if spec.is_empty() {
                        self.str_value(v)
                    } else {
                        self.b.str_of(v.v, spec)
                    };
                    out.push(s);
                }
            }
        }
        Ok(())
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Fold {
    Sum,
    Min,
    Max,
}

fn arg_span(
    args: &[Expr],
    kws: &[Keyword],
    positional: &[usize],
    slot: usize,
    name: &str,
) -> Option<Span> {
    if let Some(p) = positional.iter().position(|&s| s == slot)
        && let Some(a) = args.get(p)
    {
        return Some(a.span);
    }
    kws.iter()
        .find(|k| k.arg.as_ref().is_some_and(|a| a.name == name))
        .map(|k| k.value.span)
}

fn is_exception_name(n: &str) -> bool {
    n == "Exception" || n.ends_with("Error")
}

/// Levenshtein distance, for "did you mean" suggestions.
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut cur = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
        }
        prev = cur;
    }
    prev[b.len()]
}
