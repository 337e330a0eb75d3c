//! Tensor operations: `torch.*`, `F.*`, `np.*` functions, tensor methods and attributes,
//! operators on tensors, subscripts and index assignment. Every op comes from the runtime's
//! schema table: arguments are bound and overloads resolved by the table's own [`resolve`]
//! (TorchScript's first-match order), so there is no hand-written case per op.

use super::{Lower, R, Val, from_ir_type, ir_type, unsupported_operands};
use crate::ty::Ty;
use pyjit_ir::{IndexKind, Type, Value};
use pyjit_runtime::DType;
use pyjit_runtime::numpy as np_conv;

/// The IR's dtype for a runtime dtype (matched by name, so it holds whether or not the IR re-exports
/// the runtime's type).
pub(crate) fn ir_dtype(d: DType) -> pyjit_ir::DType {
    pyjit_ir::DType::ALL
        .into_iter()
        .find(|x| x.name() == d.name())
        .unwrap_or(pyjit_ir::DType::Float32)
}
use pyjit_runtime::error::BindError;
use pyjit_runtime::schema::{
    self as rs, ArgKind, ArgType, BindArg, DefaultValue, OperatorForm, PyOperator,
};
use pyjit_syntax::ast::{BinOp, CmpOp, Expr, ExprKind, Keyword, UnaryOp};
use pyjit_syntax::{Diagnostic, Span};

/// A statically known call argument, placed by the runtime's [`rs::bind`]; conversions to the
/// parameter's canonical form are emitted afterwards by [`Lower::materialize`].
#[derive(Clone, Debug)]
pub(crate) enum SArg {
    V(Val),
    Default(DefaultValue),
    /// Trailing positional ints packed into an int list (`x.view(2, 3)`).
    Packed(Vec<SArg>),
    /// The encoded components of a subscript.
    Indices(Value),
}

fn kind_of(t: &Ty) -> ArgKind {
    match t {
        Ty::Tensor => ArgKind::Tensor,
        Ty::Int => ArgKind::Int,
        Ty::Float => ArgKind::Float,
        Ty::Bool => ArgKind::Bool,
        Ty::Str | Ty::Device => ArgKind::Str,
        Ty::None => ArgKind::None,
        Ty::DType => ArgKind::DType,
        Ty::List(e) => match e.as_ref() {
            Ty::Int => ArgKind::IntList,
            Ty::Float => ArgKind::FloatList,
            Ty::Bool => ArgKind::BoolList,
            Ty::Tensor => ArgKind::TensorList,
            _ => ArgKind::List,
        },
        // No op takes a dict; binding fails with the op's own "expected ..." message.
        Ty::Dict(..) => ArgKind::List,
        Ty::Tuple(ts) => {
            if ts.iter().all(|t| *t == Ty::Int) {
                ArgKind::IntList
            } else if ts.iter().all(|t| *t == Ty::Tensor) {
                ArgKind::TensorList
            } else if ts.iter().all(|t| t.is_number()) {
                ArgKind::FloatList
            } else {
                ArgKind::List
            }
        }
        // An Optional is accepted where its content is; `materialize` passes it as is.
        Ty::Optional(inner) => kind_of(inner),
    }
}

impl BindArg for SArg {
    fn kind(&self) -> ArgKind {
        match self {
            SArg::V(v) => kind_of(&v.ty),
            SArg::Default(d) => match d {
                DefaultValue::None => ArgKind::None,
                DefaultValue::Bool(_) => ArgKind::Bool,
                DefaultValue::Int(_) => ArgKind::Int,
                DefaultValue::Float(_) => ArgKind::Float,
                DefaultValue::Str(_) => ArgKind::Str,
                DefaultValue::IntList(_) => ArgKind::IntList,
            },
            SArg::Packed(_) => ArgKind::IntList,
            SArg::Indices(_) => ArgKind::Indices,
        }
    }

    fn from_default(d: &DefaultValue) -> Self {
        SArg::Default(d.clone())
    }

    fn coerce(self, _ty: &ArgType) -> Option<Self> {
        Some(self)
    }

    fn pack_ints(items: Vec<Self>) -> Option<Self> {
        // An `Optional[int]` item is packed too (`kind_of` lets an Optional stand for its
        // content) so that `materialize` can say which item must be refined first.
        items
            .iter()
            .all(|a| a.kind() == ArgKind::Int)
            .then_some(SArg::Packed(items))
    }
}

/// One component of a subscript.
enum IndexItem {
    Int(Value),
    Slice(Option<Value>, Option<Value>, Option<Value>),
    NewAxis,
    Ellipsis,
    Tensor(Value),
}

fn py_operator(op: BinOp) -> PyOperator {
    pyjit_value::ops::tensor_operator(op)
}

/// The scalar type a one-element tensor is converted to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ScalarTy {
    Int,
    Float,
    Bool,
}

impl Lower<'_, '_, '_> {
    /// Resolves `name` against the schema table and emits the op. `what` is how the user
    /// spelled it, for messages.
    pub(crate) fn schema_call(
        &mut self,
        name: &str,
        positional: Vec<SArg>,
        keywords: Vec<(String, SArg)>,
        what: &str,
        span: Span,
    ) -> R<Val> {
        // A keyword no overload knows gets its own message (with a suggestion) rather than
        // "no overload matches".
        for (k, _) in &keywords {
            let known = rs::overloads(name).any(|(_, s)| {
                s.param_index(k).is_some() || matches!(k.as_str(), "input" | "axis" | "keepdims")
            });
            if !known && rs::has_op(name) {
                let mut names: Vec<String> = Vec::new();
                for (_, s) in rs::overloads(name) {
                    for p in &s.params {
                        if p.name != "self" && !names.contains(&p.name) {
                            names.push(p.name.clone());
                        }
                    }
                }
                let mut d = Diagnostic::error(format!("`{what}` has no parameter named `{k}`"))
                    .with_primary(span, format!("unexpected keyword argument `{k}`"));
                if let Some(best) = names
                    .iter()
                    .filter(|n| super::expr::edit_distance(k, n) <= 3)
                    .min_by_key(|n| super::expr::edit_distance(k, n))
                {
                    d = d.with_help(format!("did you mean `{best}`?"));
                } else if !names.is_empty() {
                    d = d.with_help(format!("its parameters are {}", names.join(", ")));
                }
                return Err(d);
            }
        }
        let (id, bound) = match rs::resolve(name, positional, keywords) {
            Ok(r) => r,
            Err(e) => {
                let with_sigs = !matches!(
                    e,
                    BindError::NoMatchingOverload { .. } | BindError::UnknownOp(_)
                );
                let mut d = bind_error(e, what, span);
                if with_sigs {
                    let sigs: Vec<String> = rs::overloads(name)
                        .map(|(_, s)| format!("  {}", s.signature))
                        .collect();
                    d = d.with_note(format!(
                        "signature{}:\n{}",
                        if sigs.len() == 1 { "" } else { "s" },
                        sigs.join("\n")
                    ));
                }
                return Err(d);
            }
        };
        let schema = rs::schema(id);
        let mut operands = Vec::with_capacity(bound.len());
        for (a, p) in bound.into_iter().zip(&schema.params) {
            operands.push(self.materialize(a, &p.ty, what, &p.name, span)?);
        }
        self.set_span(span);
        // The IR names tensor ops by the runtime table's ids.
        let ir_id = pyjit_ir::OpId(id.0);
        // Result types come from the runtime's table (generic tensors; specialization refines).
        let types: Vec<Type> = schema.returns.iter().map(|r| ret_type(&r.ty)).collect();
        let op = self
            .b
            .insert(pyjit_ir::OpKind::Tensor(ir_id), &operands, &types, &[]);
        let results = self.b.results(op);
        match results.as_slice() {
            [one] => Ok(Val {
                v: *one,
                ty: from_ir_type(self.b.value_type(*one)),
            }),
            many => {
                let tys: Vec<Ty> = many
                    .iter()
                    .map(|v| from_ir_type(self.b.value_type(*v)))
                    .collect();
                let v = self.b.tuple_new(many);
                Ok(Val {
                    v,
                    ty: Ty::Tuple(tys),
                })
            }
        }
    }

    /// Emits the conversion of a bound argument to the form its parameter takes in the IR:
    /// `Tensor` → Tensor, `int`/`float`/`bool`/`str`/`ScalarType` → that scalar type (`int` → `float`
    /// converted), `Scalar` → the scalar as it is, `int[]`/`float[]`/`Tensor[]` → `List[...]`
    /// (a single int or a tuple becomes a list), `Index[]` → the encoded subscript tuple, `T?` →
    /// `None` when absent, else the value converted as for `T` (an `Optional` value is passed as is).
    fn materialize(
        &mut self,
        a: SArg,
        ty: &ArgType,
        what: &str,
        pname: &str,
        span: Span,
    ) -> R<Value> {
        let mismatch = |got: &Ty| {
            Diagnostic::error(format!(
                "argument `{pname}` of `{what}` must be `{ty}`, found `{got}`"
            ))
            .with_primary(span, format!("in this call of `{what}`"))
        };
        match a {
            SArg::Indices(v) => Ok(v),
            SArg::Default(d) => Ok(match d {
                DefaultValue::None => self.b.const_none(),
                DefaultValue::Bool(b) => self.b.const_bool(b),
                DefaultValue::Int(i) => {
                    let v = self.b.const_int(i);
                    return self.materialize(
                        SArg::V(Val { v, ty: Ty::Int }),
                        ty,
                        what,
                        pname,
                        span,
                    );
                }
                DefaultValue::Float(f) => self.b.const_float(f),
                DefaultValue::Str(s) => self.b.const_str(s),
                DefaultValue::IntList(is) => {
                    let vs: Vec<Value> = is.iter().map(|&i| self.b.const_int(i)).collect();
                    self.b.list_new(Type::Int, &vs)
                }
            }),
            SArg::Packed(items) => {
                let mut vs = Vec::new();
                for (i, it) in items.into_iter().enumerate() {
                    if let SArg::V(v) = it {
                        if let Ty::Optional(_) = v.ty {
                            return Err(Diagnostic::error(format!(
                                "argument `{pname}` of `{what}` must be a list of `int`, but its \
                                 element {i} is `{}`",
                                v.ty
                            ))
                            .with_primary(span, format!("in this call of `{what}`"))
                            .with_help(
                                "refine the Optional first, e.g. `if n is None: n = ...` \
                                 (TorchScript rejects it too)",
                            ));
                        }
                        vs.push(v.v);
                    }
                }
                Ok(self.b.list_new(Type::Int, &vs))
            }
            SArg::V(v) => {
                let base = match ty {
                    ArgType::Optional(inner) => {
                        if v.ty == Ty::None || matches!(v.ty, Ty::Optional(_)) {
                            return Ok(v.v);
                        }
                        inner.as_ref()
                    }
                    t => {
                        if let Ty::Optional(inner) = &v.ty {
                            return Err(Diagnostic::error(format!(
                                "argument `{pname}` of `{what}` may be None, but `{what}` needs a `{inner}`"
                            ))
                            .with_primary(span, format!("`{pname}` is `{}`", v.ty))
                            .with_help("test it first (`if x is not None:`) or `assert x is not None`"));
                        }
                        t
                    }
                };
                match base {
                    ArgType::Float => match v.ty {
                        Ty::Float => Ok(v.v),
                        Ty::Int => Ok(self.b.cast(pyjit_ir::CastOp::IntToFloat, v.v)),
                        _ => Err(mismatch(&v.ty)),
                    },
                    ArgType::IntList(_) => {
                        self.list_of(v, &Ty::Int).ok_or_else(|| mismatch(&Ty::Int))
                    }
                    ArgType::FloatList => self
                        .list_of(v.clone(), &Ty::Float)
                        .ok_or_else(|| mismatch(&v.ty)),
                    ArgType::TensorList => self
                        .list_of(v.clone(), &Ty::Tensor)
                        .ok_or_else(|| mismatch(&v.ty)),
                    _ => Ok(v.v),
                }
            }
        }
    }

    /// A list of `elem` from an int (one element), a tuple or a list value.
    fn list_of(&mut self, v: Val, elem: &Ty) -> Option<Value> {
        match &v.ty {
            Ty::List(e) if e.as_ref() == elem => Some(v.v),
            Ty::List(e) if **e == Ty::Int && *elem == Ty::Float => {
                // A List[int] where float[] is expected: convert element-wise with a loop would be
                // needed; the table has no such parameter, so this stays unsupported.
                None
            }
            Ty::Tuple(ts) => {
                let ts = ts.clone();
                let mut out = Vec::new();
                for (i, t) in ts.iter().enumerate() {
                    let x = self.b.tuple_get(v.v, i as u32);
                    out.push(self.try_coerce(
                        &Val {
                            v: x,
                            ty: t.clone(),
                        },
                        elem,
                    )?);
                }
                Some(self.b.list_new(ir_type(elem), &out))
            }
            t if t == elem || (*t == Ty::Int && *elem == Ty::Float) => {
                let x = self.try_coerce(&v, elem)?;
                Some(self.b.list_new(ir_type(elem), &[x]))
            }
            _ => None,
        }
    }

    // ---- operators ----

    pub(crate) fn tensor_binop(&mut self, op: BinOp, l: Val, r: Val, span: Span) -> R<Val> {
        let pyop = py_operator(op);
        let bad = |l: &Val, r: &Val| unsupported_operands(op, &l.ty, &r.ty, span);
        let (form, ok) = if l.ty == Ty::Tensor {
            (
                OperatorForm::Forward,
                r.ty == Ty::Tensor || r.ty.is_scalar(),
            )
        } else {
            (OperatorForm::Reflected, l.ty.is_scalar())
        };
        if !ok {
            if matches!(l.ty, Ty::Optional(_)) || matches!(r.ty, Ty::Optional(_)) {
                return Err(bad(&l, &r).with_help(
                    "the operand may be None: test it first (`if x is not None:`) or `assert x is not None`",
                ));
            }
            return Err(bad(&l, &r));
        }
        let Some(target) = rs::operator_target(pyop, form) else {
            return Err(bad(&l, &r));
        };
        let (a, b) = if target.swap {
            (r.clone(), l.clone())
        } else {
            (l.clone(), r.clone())
        };
        let what = format!("operator {}", op.symbol());
        self.schema_call(
            target.name,
            vec![SArg::V(a), SArg::V(b)],
            vec![],
            &what,
            span,
        )
        .map_err(|_| bad(&l, &r))
    }

    pub(crate) fn tensor_compare(&mut self, op: CmpOp, l: Val, r: Val, span: Span) -> R<Val> {
        let pyop = match pyjit_value::ops::tensor_comparison(op) {
            Some(p) => p,
            None => {
                return Err(Diagnostic::error(format!(
                    "`{}` is not supported on tensors",
                    op.symbol()
                ))
                .with_primary(span, "tensor operand"));
            }
        };
        let bad = || {
            Diagnostic::error(format!(
                "cannot compare `{}` {} `{}`",
                l.ty,
                op.symbol(),
                r.ty
            ))
            .with_primary(span, "unsupported comparison")
        };
        let form = if l.ty == Ty::Tensor {
            OperatorForm::Forward
        } else {
            OperatorForm::Reflected
        };
        let other = if l.ty == Ty::Tensor { &r } else { &l };
        if !(other.ty == Ty::Tensor || other.ty.is_scalar()) {
            return Err(bad());
        }
        let Some(target) = rs::operator_target(pyop, form) else {
            return Err(bad());
        };
        let (a, b) = if target.swap {
            (r.clone(), l.clone())
        } else {
            (l.clone(), r.clone())
        };
        self.schema_call(
            target.name,
            vec![SArg::V(a), SArg::V(b)],
            vec![],
            op.symbol(),
            span,
        )
    }

    pub(crate) fn tensor_unary(&mut self, op: UnaryOp, x: Val, span: Span) -> R<Val> {
        let pyop = match op {
            UnaryOp::Neg => PyOperator::Neg,
            UnaryOp::Pos => PyOperator::Pos,
            UnaryOp::Invert => PyOperator::Invert,
            UnaryOp::Not => {
                let b = self.scalar_of(ScalarTy::Bool, x.v)?;
                let v = self.b.not(b);
                return Ok(Val { v, ty: Ty::Bool });
            }
        };
        let Some(target) = rs::operator_target(pyop, OperatorForm::Forward) else {
            return Err(Diagnostic::error(format!(
                "unary `{}` is not supported on tensors",
                op.symbol()
            ))
            .with_primary(span, "tensor operand"));
        };
        self.schema_call(target.name, vec![SArg::V(x)], vec![], op.symbol(), span)
    }

    /// `x op= y` on a tensor: in place (keeps `x`'s dtype, visible through aliases); `@=` rebinds.
    pub(crate) fn tensor_inplace(&mut self, op: BinOp, x: Val, rhs: Val, span: Span) -> R<Val> {
        if x.ty != Ty::Tensor {
            return self.binop(op, x, rhs, span);
        }
        match rs::operator_target(py_operator(op), OperatorForm::InPlace) {
            Some(t) => {
                let what = format!("operator {}=", op.symbol());
                self.schema_call(t.name, vec![SArg::V(x), SArg::V(rhs)], vec![], &what, span)
            }
            None => self.tensor_binop(op, x, rhs, span),
        }
    }

    /// A call of an existing op by name with values (used by builtins like `abs(t)`).
    pub(crate) fn tensor_fn_by_name(&mut self, name: &str, args: Vec<Val>, span: Span) -> R<Val> {
        self.schema_call(
            name,
            args.into_iter().map(SArg::V).collect(),
            vec![],
            name,
            span,
        )
    }

    /// `int(t)`, `float(t)`, `bool(t)`, `t.item()` and tensor conditions: the table's
    /// `Int.Tensor`/`Float.Tensor`/`Bool.Tensor` (an error at run time unless one element).
    pub(crate) fn scalar_of(&mut self, k: ScalarTy, t: Value) -> R<Value> {
        let span = self.b.span();
        let name = match k {
            ScalarTy::Int => "Int",
            ScalarTy::Float => "Float",
            ScalarTy::Bool => "Bool",
        };
        Ok(self
            .schema_call(
                name,
                vec![SArg::V(Val {
                    v: t,
                    ty: Ty::Tensor,
                })],
                vec![],
                "conversion to a scalar",
                span,
            )?
            .v)
    }

    /// `t.item()`: PyTorch's own error for a tensor without exactly one element
    /// (`RuntimeError: a Tensor with N elements cannot be converted to Scalar`), then the scalar.
    pub fn item_of(&mut self, k: ScalarTy, t: Value) -> R<Value> {
        let span = self.b.span();
        let tv = Val {
            v: t,
            ty: Ty::Tensor,
        };
        let n = self.schema_call("numel", vec![SArg::V(tv)], vec![], "item", span)?;
        let one = self.b.const_int(1);
        let bad = self.b.int_cmp(pyjit_ir::CmpOp::Ne, n.v, one);
        self.raise_if(bad, "RuntimeError", |s| {
            let a = s.b.const_str("a Tensor with ");
            let c = s.b.str_of(n.v, "");
            let z = s.b.const_str(" elements cannot be converted to Scalar");
            Ok(s.b.str_concat(&[a, c, z]))
        })?;
        self.set_span(span);
        self.scalar_of(k, t)
    }

    /// A tensor used where Python wants an index (`x[:n]` with `n` a tensor): Python's
    /// `n.__index__()`, which needs one element of an integer (or bool) dtype and raises
    /// PyTorch's `TypeError` otherwise.
    pub(crate) fn tensor_as_index(&mut self, t: Value) -> R<Value> {
        let span = self.b.span();
        let tv = Val {
            v: t,
            ty: Ty::Tensor,
        };
        let n = self.schema_call("numel", vec![SArg::V(tv.clone())], vec![], "index", span)?;
        let fp = self.schema_call(
            "is_floating_point",
            vec![SArg::V(tv)],
            vec![],
            "index",
            span,
        )?;
        let one = self.b.const_int(1);
        let single = self.b.int_cmp(pyjit_ir::CmpOp::Eq, n.v, one);
        let integral = self.b.not(fp.v);
        let ok = self.b.bool_bin(pyjit_ir::BoolBinOp::And, single, integral);
        let msg = self
            .b
            .const_str("only integer tensors of a single element can be converted to an index");
        self.b.check("TypeError", ok, msg);
        self.scalar_of(ScalarTy::Int, t)
    }

    /// The methods of a `Dict[K, V]`: `keys()`, `values()`, `items()` (fresh lists in
    /// insertion order, as TorchScript's), `get(k)` (an `Optional[V]`) and `get(k, default)`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn dict_method(
        &mut self,
        e: &Expr,
        recv: Val,
        kt: Ty,
        vt: Ty,
        name: &str,
        nspan: Span,
        args: &[Expr],
        kws: &[Keyword],
    ) -> R<Val> {
        if let Some(k) = kws.first() {
            return Err(Diagnostic::error(format!(
                "keyword arguments of `dict.{name}` are not supported"
            ))
            .with_primary(k.span, "keyword argument")
            .with_help("pass the arguments positionally"));
        }
        let d = recv.v;
        let list = |s: &mut Self, kind: pyjit_ir::OpKind, elem: Ty| {
            s.set_span(e.span);
            let v = s.b.insert1(kind, &[d], ir_type(&Ty::list(elem.clone())));
            Ok(Val {
                v,
                ty: Ty::list(elem),
            })
        };
        match (name, args) {
            ("keys", []) => list(self, pyjit_ir::OpKind::DictKeys, kt),
            ("values", []) => list(self, pyjit_ir::OpKind::DictValues, vt),
            ("items", []) => list(self, pyjit_ir::OpKind::DictItems, Ty::Tuple(vec![kt, vt])),
            ("get", [k, rest @ ..]) if rest.len() <= 1 && !matches!(vt, Ty::Optional(_)) => {
                let key = self.dict_key(&kt, k)?;
                let default = match rest.first() {
                    Some(x) => {
                        let v = self.expr_hint(x, Some(&vt))?;
                        Some(self.coerce(v, &vt, x.span, |got, want| {
                            format!("the default of `get` has type `{got}`, but the dict holds `{want}`")
                        })?)
                    }
                    None => None,
                };
                self.set_span(e.span);
                let rty = match default {
                    Some(_) => vt.clone(),
                    None => Ty::optional(vt.clone()),
                };
                let has = self
                    .b
                    .insert1(pyjit_ir::OpKind::DictContains, &[d, key], Type::Bool);
                let then_r = self.b.new_region(&[]);
                let else_r = self.b.new_region(&[]);
                let vir = ir_type(&vt);
                self.b.build_in(then_r, |b| {
                    let v = b.insert1(pyjit_ir::OpKind::DictGet, &[d, key], vir.clone());
                    let v = if default.is_some() { v } else { b.opt_wrap(v) };
                    b.yield_(&[v]);
                });
                self.b.build_in(else_r, |b| {
                    let v = match default {
                        Some(v) => v,
                        None => b.opt_none(vir.clone()),
                    };
                    b.yield_(&[v]);
                });
                let op = self.b.if_(has, then_r, else_r, &[ir_type(&rty)]);
                let v = self.b.result(op);
                Ok(Val { v, ty: rty })
            }
            _ => Err(Diagnostic::error(format!(
                "dicts have no method `{name}` with {} argument{} here",
                args.len(),
                if args.len() == 1 { "" } else { "s" }
            ))
            .with_primary(nspan, "unsupported dict method")
            .with_help(
                "dicts support `d[k]`, `d[k] = v`, `in`, `len`, iteration, `keys()`, `values()`, `items()` and `get(k[, default])`",
            )),
        }
    }

    /// `len(t)` / the trip count of iterating a tensor: its first dimension.
    pub(crate) fn tensor_len(&mut self, t: Value) -> R<Value> {
        let span = self.b.span();
        let zero = self.b.const_int(0);
        let r = self.schema_call(
            "size",
            vec![
                SArg::V(Val {
                    v: t,
                    ty: Ty::Tensor,
                }),
                SArg::V(Val {
                    v: zero,
                    ty: Ty::Int,
                }),
            ],
            vec![],
            "len",
            span,
        )?;
        Ok(r.v)
    }

    /// `t[i]` for iteration over a tensor's first dimension.
    pub(crate) fn tensor_row(&mut self, t: Value, i: Value) -> R<Value> {
        let span = self.b.span();
        let idx = self.encode_indices(vec![IndexItem::Int(i)]);
        let r = self.schema_call(
            "index",
            vec![
                SArg::V(Val {
                    v: t,
                    ty: Ty::Tensor,
                }),
                SArg::Indices(idx),
            ],
            vec![],
            "indexing",
            span,
        )?;
        // NumPy: the elements of a 1-D array are scalars (copies), the rows of others views.
        let r = self.numpy_element(r, true, span)?;
        Ok(r.v)
    }

    /// In a NumPy-style module, `r`, the result of a subscript made of ints only (`ints_only`),
    /// wrapped in `np_element`: NumPy gives a scalar (a copy) when the ints select one element
    /// and a view when they are fewer than the dims; which one is known only once the rank is
    /// (at run time, or after specialization). Otherwise `r` itself (PyTorch: always a view).
    fn numpy_element(&mut self, r: Val, ints_only: bool, span: Span) -> R<Val> {
        if !(ints_only && self.m.info.numpy_mode()) {
            return Ok(r);
        }
        self.set_span(span);
        self.schema_call("np_element", vec![SArg::V(r)], vec![], "indexing", span)
    }

    // ---- subscripts ----

    /// The `Index[]` operand of `index`/`index_put_`: a `List[Index]` of `index.*` components.
    fn encode_indices(&mut self, items: Vec<IndexItem>) -> Value {
        let mut vs = Vec::new();
        for it in items {
            vs.push(match it {
                IndexItem::Int(v) => self.b.index(IndexKind::Int, &[v]),
                IndexItem::Tensor(v) => self.b.index(IndexKind::Tensor, &[v]),
                IndexItem::NewAxis => self.b.index(IndexKind::None, &[]),
                IndexItem::Ellipsis => self.b.index(IndexKind::Ellipsis, &[]),
                IndexItem::Slice(a, b, c) => {
                    let a = match a {
                        Some(v) => self.b.opt_wrap(v),
                        None => self.b.opt_none(Type::Int),
                    };
                    let b = match b {
                        Some(v) => self.b.opt_wrap(v),
                        None => self.b.opt_none(Type::Int),
                    };
                    let c = match c {
                        Some(v) => v,
                        None => self.b.const_int(1),
                    };
                    self.b.index(IndexKind::Slice, &[a, b, c])
                }
            });
        }
        self.b.list_new(Type::Index, &vs)
    }

    fn index_items(&mut self, index: &Expr) -> R<Vec<IndexItem>> {
        let parts: Vec<&Expr> = match &index.kind {
            ExprKind::Tuple(items) => items.iter().collect(),
            _ => vec![index],
        };
        let mut out = Vec::new();
        for p in parts {
            out.push(match &p.kind {
                ExprKind::None => IndexItem::NewAxis,
                ExprKind::Ellipsis => IndexItem::Ellipsis,
                ExprKind::Slice { lower, upper, step } => {
                    let get = |e: &Option<Box<Expr>>, this: &mut Self| -> R<Option<Value>> {
                        match e {
                            None => Ok(None),
                            Some(e) => {
                                let v = this.expr(e)?;
                                if v.ty == Ty::Tensor {
                                    this.set_span(e.span);
                                    return Ok(Some(this.tensor_as_index(v.v)?));
                                }
                                Ok(Some(this.expect_int(v, e, "slice bound")?))
                            }
                        }
                    };
                    let a = get(lower, self)?;
                    let b = get(upper, self)?;
                    let c = get(step, self)?;
                    IndexItem::Slice(a, b, c)
                }
                _ => {
                    let v = self.expr(p)?;
                    match v.ty {
                        Ty::Int => IndexItem::Int(v.v),
                        Ty::Bool => {
                            let i = self.b.cast(pyjit_ir::CastOp::BoolToInt, v.v);
                            IndexItem::Int(i)
                        }
                        Ty::Tensor => IndexItem::Tensor(v.v),
                        other => {
                            return Err(self.with_param_help(
                                Diagnostic::error(format!(
                                    "a tensor cannot be indexed with a `{other}`"
                                ))
                                .with_primary(p.span, format!("`{other}` index"))
                                .with_help("index with ints, slices, `None`, `...` or a tensor"),
                                p,
                                &other,
                                "int",
                            ));
                        }
                    }
                }
            });
        }
        Ok(out)
    }

    /// `base[index]`, also returning the encoded subscript for a later `index_put_`.
    pub(crate) fn tensor_index_keep(
        &mut self,
        base: Val,
        index: &Expr,
        span: Span,
    ) -> R<(Val, Value)> {
        let items = self.index_items(index)?;
        self.index_with_items(base, items, span)
    }

    /// `base[items]`: encodes the subscript and calls `index`, returning the result and the
    /// encoded subscript.
    fn index_with_items(
        &mut self,
        base: Val,
        items: Vec<IndexItem>,
        span: Span,
    ) -> R<(Val, Value)> {
        self.set_span(span);
        let idx = self.encode_indices(items);
        let v = self.schema_call(
            "index",
            vec![SArg::V(base), SArg::Indices(idx)],
            vec![],
            "indexing",
            span,
        )?;
        Ok((v, idx))
    }

    /// `base[idx] = v` with an already encoded subscript.
    pub(crate) fn tensor_put(&mut self, base: Val, idx: Value, v: Val, span: Span) -> R<()> {
        self.set_span(span);
        self.schema_call(
            "index_put_",
            vec![SArg::V(base), SArg::Indices(idx), SArg::V(v)],
            vec![],
            "index assignment",
            span,
        )?;
        Ok(())
    }

    /// `base[index]` as an expression. In a NumPy-style module a subscript of ints only gives
    /// NumPy's scalar copy when it selects one element (see [`Lower::numpy_element`]); stores
    /// (`x[i] = v`, `x[i] += v`) go through [`Lower::tensor_index_keep`] and write `base`.
    pub(crate) fn tensor_index(&mut self, base: Val, index: &Expr, span: Span) -> R<Val> {
        let items = self.index_items(index)?;
        let ints_only = items.iter().all(|it| matches!(it, IndexItem::Int(_)));
        let (r, _) = self.index_with_items(base, items, span)?;
        self.numpy_element(r, ints_only, span)
    }

    /// `t[idx] = v`: `index_put_` writes into `t`'s storage, so every alias sees it.
    pub(crate) fn tensor_setitem(
        &mut self,
        base: Val,
        index: &Expr,
        val: Val,
        vspan: Span,
        span: Span,
    ) -> R<()> {
        let items = self.index_items(index)?;
        self.set_span(span);
        let idx = self.encode_indices(items);
        if !(val.ty == Ty::Tensor || val.ty.is_scalar()) {
            return Err(
                Diagnostic::error(format!("cannot store a `{}` into a tensor", val.ty))
                    .with_primary(vspan, format!("`{}`", val.ty))
                    .with_help("assign a tensor or a number"),
            );
        }
        self.schema_call(
            "index_put_",
            vec![SArg::V(base), SArg::Indices(idx), SArg::V(val)],
            vec![],
            "index assignment",
            span,
        )?;
        Ok(())
    }

    // ---- calls ----

    /// Lowers call arguments. A `dtype=t.dtype` keyword is taken out (the runtime has no op that
    /// yields a tensor's dtype): the tensor is returned so that the caller converts the result to
    /// its dtype with [`Lower::convert_like`].
    #[allow(clippy::type_complexity)]
    fn call_args(
        &mut self,
        args: &[Expr],
        kws: &[Keyword],
    ) -> R<(Vec<SArg>, Vec<(String, SArg)>, Option<Val>)> {
        let mut pos = Vec::new();
        for a in args {
            // `torch.full([], v)`: an empty list given to an op is a size (`List[int]`).
            let hint = matches!(&a.kind, ExprKind::List(items) if items.is_empty())
                .then(|| Ty::list(Ty::Int));
            pos.push(SArg::V(self.expr_hint(a, hint.as_ref())?));
        }
        let mut named = Vec::new();
        let mut like = None;
        for k in kws {
            if let Some(n) = &k.arg {
                // `device=`: the CPU is the only device.
                if n.name == "device" {
                    let d = self.expr(&k.value)?;
                    self.check_device(&d, k.value.span)?;
                    continue;
                }
                if n.name == "dtype"
                    && let Some(t) = self.dtype_of_tensor(&k.value)?
                {
                    like = Some(t);
                    continue;
                }
                named.push((n.name.clone(), SArg::V(self.expr(&k.value)?)));
            }
        }
        Ok((pos, named, like))
    }

    /// A device argument: a `torch.device` (always the CPU), `None`, or the string `"cpu"`.
    pub fn check_device(&mut self, d: &Val, span: Span) -> R<()> {
        match &d.ty {
            Ty::Device | Ty::None => Ok(()),
            Ty::Str => match self.const_str_of(d.v) {
                Some(s) if s == "cpu" || s.starts_with("cpu:") => Ok(()),
                Some(s) => Err(Diagnostic::error(format!(
                    "pyjit runs on the CPU only: device `{s}` is not available"
                ))
                .with_primary(span, "not the CPU")
                .with_help("use `device=\"cpu\"` (or leave the device out)")),
                None => Err(
                    Diagnostic::error("a device given as a string must be a literal")
                        .with_primary(span, "not known while compiling")
                        .with_help(
                            "pass a `torch.device` (e.g. `x.device`) or the literal `\"cpu\"`",
                        ),
                ),
            },
            other => Err(Diagnostic::error(format!(
                "a device must be a `torch.device` or a string, found `{other}`"
            ))
            .with_primary(span, "not a device")),
        }
    }

    pub(crate) fn const_str_of(&self, v: Value) -> Option<String> {
        let op = self.b.func.defining_op(v)?;
        match &self.b.func.op(op).kind {
            pyjit_ir::OpKind::Const(pyjit_ir::Const::Str(s)) => Some(s.clone()),
            _ => None,
        }
    }

    /// `t.dtype` where `t` is a tensor and the runtime has no `dtype` op: the tensor.
    fn dtype_of_tensor(&mut self, e: &Expr) -> R<Option<Val>> {
        if rs::has_op("dtype") {
            return Ok(None);
        }
        if let ExprKind::Attribute { value, attr } = &e.kind
            && attr.name == "dtype"
        {
            let first = value.dotted_name();
            let is_module = first
                .as_deref()
                .and_then(|d| d.split('.').next())
                .is_some_and(|f| {
                    !self.st.vars.contains_key(f) && self.m.info.imports.bound.contains_key(f)
                });
            if !is_module {
                let t = self.expr(value)?;
                if t.ty == Ty::Tensor {
                    return Ok(Some(t));
                }
            }
        }
        Ok(None)
    }

    /// Converts `c` to the dtype of tensor `like` (for `dtype=like.dtype`): a 0-d tensor of
    /// `like`'s dtype is expanded to `c`'s shape, copied, and `c` is written into it with
    /// `index_put_`, which converts to the destination's dtype.
    fn convert_like(&mut self, c: Val, like: Val, span: Span) -> R<Val> {
        self.set_span(span);
        // Every step is a schema op without keywords.
        let op = |s: &mut Self, name: &str, args: Vec<SArg>| {
            s.schema_call(name, args, vec![], "dtype", span)
        };
        let flat = op(self, "flatten", vec![SArg::V(like)])?;
        let zero = self.b.const_int(0);
        let one = self.b.const_int(1);
        let first = self.encode_indices(vec![IndexItem::Slice(Some(zero), Some(one), None)]);
        let head = op(self, "index", vec![SArg::V(flat), SArg::Indices(first)])?;
        let z = op(self, "zeros_like", vec![SArg::V(head)])?;
        let z = op(self, "squeeze", vec![SArg::V(z)])?;
        let shape = op(self, "size", vec![SArg::V(c.clone())])?;
        let e = op(self, "expand", vec![SArg::V(z), SArg::V(shape)])?;
        let base = op(self, "clone", vec![SArg::V(e)])?;
        let all = self.encode_indices(vec![IndexItem::Ellipsis]);
        op(
            self,
            "index_put_",
            vec![SArg::V(base), SArg::Indices(all), SArg::V(c)],
        )
    }

    /// `torch.NAME(...)`, `F.NAME(...)`, `np.NAME(...)`.
    pub(crate) fn call_tensor_fn(
        &mut self,
        e: &Expr,
        canon: &str,
        fspan: Span,
        args: &[Expr],
        kws: &[Keyword],
    ) -> R<Val> {
        let (module, name) = canon.rsplit_once('.').unwrap_or(("", canon));
        let shown = self.m.file.slice(fspan).to_string();
        let unknown = |extra: &str| {
            Diagnostic::error(format!("unknown op `{shown}`"))
                .with_primary(
                    fspan,
                    format!("not an op of `{module}` the compiler knows{extra}"),
                )
                .with_help("see LANGUAGE.md \"Tensor operations\" for the supported ops")
        };
        let op_name: String = match module {
            "torch" => {
                let ok = rs::overloads(name).any(|(_, s)| s.spelling.torch);
                if !ok {
                    return Err(unknown(""));
                }
                name.to_string()
            }
            "torch.nn.functional" => {
                let ok = rs::overloads(name).any(|(_, s)| s.spelling.functional);
                if !ok {
                    return Err(unknown(""));
                }
                name.to_string()
            }
            "numpy" => match rs::numpy_function(name) {
                Some(n) => n.to_string(),
                None if DType::from_name(name).is_some() => name.to_string(),
                None => return Err(unknown(" (NumPy spelling)")),
            },
            _ => return Err(unknown("")),
        };
        let (mut pos, named, like) = self.call_args(args, kws)?;
        // `torch.meshgrid(a, b)`, `torch.einsum("ij,jk", a, b)`: the tensors are one list.
        let first = usize::from(op_name == "einsum");
        if matches!(op_name.as_str(), "meshgrid" | "einsum")
            && pos.len() > first
            && pos[first..]
                .iter()
                .all(|a| matches!(a, SArg::V(v) if v.ty == Ty::Tensor))
        {
            let ts: Vec<Value> = pos[first..]
                .iter()
                .filter_map(|a| match a {
                    SArg::V(v) => Some(v.v),
                    _ => None,
                })
                .collect();
            pos.truncate(first);
            self.set_span(e.span);
            let l = self.b.list_new(Type::tensor(), &ts);
            pos.push(SArg::V(Val {
                v: l,
                ty: Ty::list(Ty::Tensor),
            }));
        }
        if let Some(like) = like {
            let r = self.call_tensor_fn_bound(e, module, name, &op_name, pos, named, &shown)?;
            return self.convert_like(r, like, e.span);
        }
        self.call_tensor_fn_bound(e, module, name, &op_name, pos, named, &shown)
    }

    #[allow(clippy::too_many_arguments)]
    fn call_tensor_fn_bound(
        &mut self,
        e: &Expr,
        module: &str,
        name: &str,
        op_name: &str,
        pos: Vec<SArg>,
        mut named: Vec<(String, SArg)>,
        shown: &str,
    ) -> R<Val> {
        if module == "numpy"
            && let Some(d) = DType::from_name(name)
        {
            // `np.float32(2.0)`: a NumPy scalar of that dtype, i.e. a 0-d array.
            let dv = self.b.const_dtype(ir_dtype(d));
            named.push((
                "dtype".into(),
                SArg::V(Val {
                    v: dv,
                    ty: Ty::DType,
                }),
            ));
            return self.schema_call("scalar_tensor", pos, named, shown, e.span);
        }
        if module == "numpy" {
            for (k, _) in named.iter_mut() {
                *k = np_conv::numpy_keyword(k).to_string();
            }
            let kinds: Vec<np_conv::ArgKind> = pos.iter().map(sarg_kind).collect();
            let keys: Vec<&str> = named.iter().map(|(k, _)| k.as_str()).collect();
            let add = np_conv::numpy_call(op_name, &kinds, &keys);
            self.add_keywords(&mut named, add);
        }
        if op_name == "tensor" {
            return self.torch_tensor(e, pos, named, shown);
        }
        self.python_level_defaults(op_name, &pos, &mut named);
        self.schema_call(op_name, pos, named, shown, e.span)
    }

    /// `torch.tensor(data)`: a literal of numbers or nested lists of numbers.
    fn torch_tensor(
        &mut self,
        e: &Expr,
        pos: Vec<SArg>,
        named: Vec<(String, SArg)>,
        shown: &str,
    ) -> R<Val> {
        if let Some(SArg::V(v)) = pos.first()
            && !tensor_data_ok(&v.ty)
        {
            return Err(Diagnostic::error(format!(
                "`{shown}` needs numbers or (nested) lists of numbers, found `{}`",
                v.ty
            ))
            .with_primary(e.span, "unsupported data"));
        }
        self.schema_call("tensor", pos, named, shown, e.span)
    }

    /// `x.NAME(...)` on a value of any type.
    #[allow(clippy::too_many_arguments)]
    pub fn call_method(
        &mut self,
        e: &Expr,
        recv: Val,
        recv_e: &Expr,
        name: &str,
        nspan: Span,
        args: &[Expr],
        kws: &[Keyword],
    ) -> R<Val> {
        match recv.ty.clone() {
            Ty::Tensor => {}
            Ty::List(elem) => {
                return match name {
                    "append" => {
                        let [a] = args else {
                            return Err(Diagnostic::error("`append` takes exactly one argument")
                                .with_primary(e.span, "wrong number of arguments")
                                .with_help("append one element per call, or add a list with `extend`"));
                        };
                        let v = self.expr_hint(a, Some(&elem))?;
                        let v = self
                            .coerce(v, &elem, a.span, |got, want| {
                                format!("cannot append a `{got}` to a `List[{want}]`")
                            })
                            .map_err(|d| {
                                d.with_help(
                                    "annotate the element type where the list is created, e.g. `xs: List[int] = []` \
                                     (an empty list without annotation is a `List[Tensor]`)",
                                )
                            })?;
                        self.set_span(e.span);
                        self.b.list_append(recv.v, v);
                        let n = self.b.const_none();
                        Ok(Val { v: n, ty: Ty::None })
                    }
                    "extend" => {
                        let [a] = args else {
                            return Err(Diagnostic::error("`extend` takes exactly one argument")
                                .with_primary(e.span, "wrong number of arguments"));
                        };
                        let other = self.expr_hint(a, Some(&Ty::List(elem.clone())))?;
                        if other.ty != Ty::List(elem.clone()) {
                            return Err(Diagnostic::error(format!(
                                "cannot extend a `List[{elem}]` with a `{}`",
                                other.ty
                            ))
                            .with_primary(a.span, format!("`{}`", other.ty)));
                        }
                        self.set_span(e.span);
                        self.append_all(recv.v, other.v);
                        let n = self.b.const_none();
                        Ok(Val { v: n, ty: Ty::None })
                    }
                    _ => Err(
                        Diagnostic::error(format!("lists have no method `{name}` here"))
                            .with_primary(nspan, "unsupported list method")
                            .with_help(
                                "lists support indexing, slicing, `len`, iteration, `+`, `append` and `extend`",
                            ),
                    ),
                };
            }
            Ty::Dict(kt, vt) => return self.dict_method(e, recv, *kt, *vt, name, nspan, args, kws),
            other => {
                return Err(self.with_param_help(
                    Diagnostic::error(format!("a value of type `{other}` has no method `{name}`"))
                        .with_primary(nspan, format!("`{other}` has no methods")),
                    recv_e,
                    &other,
                    "Tensor",
                ));
            }
        }
        // Tensor methods.
        if name == "item" {
            if !args.is_empty() || !kws.is_empty() {
                return Err(Diagnostic::error("`item()` takes no arguments")
                    .with_primary(e.span, "arguments given"));
            }
            let v = self.item_of(ScalarTy::Float, recv.v)?;
            return Ok(Val { v, ty: Ty::Float });
        }
        if name == "size" && args.len() == 1 {
            // `x.size(d)`: the int overload.
            let d = self.expr(&args[0])?;
            return self.schema_call(
                "size",
                vec![SArg::V(recv), SArg::V(d)],
                vec![],
                "size",
                e.span,
            );
        }
        // `x.new_zeros(size)` & co. and `x.type_as(y)`: creation / conversion with another
        // tensor's dtype (the runtime has no such ops; see `convert_like`).
        if let Some(create) = match name {
            "new_zeros" => Some("zeros"),
            "new_ones" => Some("ones"),
            "new_empty" => Some("empty"),
            "new_full" => Some("full"),
            _ => None,
        } {
            let (pos, named, like) = self.call_args(args, kws)?;
            if like.is_some() || named.iter().any(|(k, _)| k == "dtype") {
                return Err(
                    Diagnostic::error(format!("`{name}` with `dtype=` is not supported"))
                        .with_primary(e.span, "dtype argument")
                        .with_help(format!("use `torch.{create}(..., dtype=...)`")),
                );
            }
            let shown = format!("Tensor.{name}");
            let r = self.schema_call(create, pos, named, &shown, e.span)?;
            return self.convert_like(r, recv, e.span);
        }
        if name == "type_as" {
            let [a] = args else {
                return Err(Diagnostic::error("`type_as` takes one tensor")
                    .with_primary(e.span, "wrong number of arguments"));
            };
            let other = self.expr(a)?;
            if other.ty != Ty::Tensor {
                return Err(Diagnostic::error(format!(
                    "`type_as` needs a tensor, found `{}`",
                    other.ty
                ))
                .with_primary(a.span, "not a tensor"));
            }
            return self.convert_like(recv, other, e.span);
        }
        let mut op_name = name.to_string();
        let numpy = self.m.info.numpy_mode();
        let np_method = if numpy {
            rs::numpy_function(name)
        } else {
            None
        };
        let is_method = rs::overloads(name).any(|(_, s)| s.spelling.method);
        if let Some(n) =
            np_method.filter(|n| rs::overloads(n).any(|(_, s)| s.spelling.method) || *n == "to")
        {
            op_name = n.to_string();
        } else if !is_method {
            match rs::numpy_function(name) {
                Some(n) if rs::overloads(n).any(|(_, s)| s.spelling.method) || n == "to" => {
                    op_name = n.to_string()
                }
                _ => {
                    let mut d = Diagnostic::error(format!("unknown tensor method `{name}`"))
                        .with_primary(nspan, "not a tensor method the compiler knows");
                    if rs::has_op(name) {
                        d = d.with_help(format!(
                            "`{name}` exists as a function: `torch.{name}(x, ...)`"
                        ));
                    } else if let Some(best) = rs::all()
                        .filter(|(_, s)| s.spelling.method)
                        .map(|(_, s)| s.name.clone())
                        .filter(|n| super::expr::edit_distance(name, n) <= 2)
                        .min_by_key(|n| super::expr::edit_distance(name, n))
                    {
                        d = d.with_help(format!("did you mean `{best}`?"));
                    }
                    return Err(d);
                }
            }
        }
        // `y.to(x.dtype)` converts like `x`.
        if op_name == "to"
            && let [a] = args
            && kws.is_empty()
            && let Some(like) = self.dtype_of_tensor(a)?
        {
            return self.convert_like(recv, like, e.span);
        }
        let (mut pos, mut named, like) = self.call_args(args, kws)?;
        if op_name == "to" {
            // `x.to(device)`, `x.to(device, dtype)`: the device part is the identity.
            if let Some(SArg::V(d)) = pos.first()
                && matches!(d.ty, Ty::Device | Ty::Str)
            {
                let d = d.clone();
                self.check_device(&d, args[0].span)?;
                pos.remove(0);
            }
            if pos.is_empty() && named.is_empty() && like.is_none() {
                return Ok(recv);
            }
        }
        if op_name == "where" {
            // `x.where(cond, other)`: `x` is the value where `cond` holds.
            if pos.is_empty() {
                return Err(Diagnostic::error(
                    "`Tensor.where` takes a condition and another value",
                )
                .with_primary(e.span, "missing `condition`"));
            }
            let cond = pos.remove(0);
            pos.insert(0, SArg::V(recv));
            pos.insert(0, cond);
            let shown = "Tensor.where".to_string();
            return self.schema_call("where", pos, named, &shown, e.span);
        }
        pos.insert(0, SArg::V(recv));
        if numpy {
            for (k, _) in named.iter_mut() {
                *k = np_conv::numpy_keyword(k).to_string();
            }
            let kinds: Vec<np_conv::ArgKind> = pos.iter().map(sarg_kind).collect();
            let keys: Vec<&str> = named.iter().map(|(k, _)| k.as_str()).collect();
            let add = np_conv::numpy_call(&op_name, &kinds, &keys);
            self.add_keywords(&mut named, add);
        }
        self.python_level_defaults(&op_name, &pos, &mut named);
        let shown = format!("Tensor.{name}");
        let r = self.schema_call(&op_name, pos, named, &shown, e.span)?;
        match like {
            Some(like) => self.convert_like(r, like, e.span),
            None => Ok(r),
        }
    }

    /// `x.shape`, `x.T`, `x.ndim`, `torch.float32`, `math.pi` …
    pub fn attribute(&mut self, e: &Expr, value: &Expr, attr: &str, aspan: Span) -> R<Val> {
        if let Some(dotted) = e.dotted_name() {
            let first = dotted.split('.').next().unwrap_or("");
            if !self.st.vars.contains_key(first)
                && let Some(canon) = self.m.info.imports.canonical(&dotted)
            {
                return self.module_attribute(e, &canon);
            }
        }
        let recv = self.expr(value)?;
        self.set_span(e.span);
        // The named-tuple results of `max(x, dim)`, `min`, `sort`, `topk`: (values, indices).
        if let Ty::Tuple(ts) = &recv.ty
            && matches!(attr, "values" | "indices")
            && ts.len() == 2
            && ts.iter().all(|t| *t == Ty::Tensor)
        {
            let v = self.b.tuple_get(recv.v, u32::from(attr == "indices"));
            return Ok(Val { v, ty: Ty::Tensor });
        }
        if recv.ty == Ty::Device && attr == "type" {
            let v = self.b.const_str("cpu");
            return Ok(Val { v, ty: Ty::Str });
        }
        if recv.ty != Ty::Tensor {
            return Err(self.with_param_help(
                Diagnostic::error(format!(
                    "a value of type `{}` has no attribute `{attr}`",
                    recv.ty
                ))
                .with_primary(aspan, "unknown attribute"),
                value,
                &recv.ty,
                "Tensor",
            ));
        }
        match attr {
            "shape" => self.schema_call("size", vec![SArg::V(recv)], vec![], "shape", e.span),
            "T" => {
                // PyTorch's and NumPy's `.T` reverses all dimensions (`t()` only takes ≤ 2-D):
                // permute by [ndim-1, …, 0], built with a loop since the rank is not static.
                let nd = self.schema_call("dim", vec![SArg::V(recv.clone())], vec![], "T", e.span)?;
                let dims = self.b.list_new(Type::Int, &[]);
                self.for_range(nd.v, |this, i| {
                    let one = this.b.const_int(1);
                    let last = this.b.int_bin(pyjit_ir::IntBinOp::Sub, nd.v, one);
                    let d = this.b.int_bin(pyjit_ir::IntBinOp::Sub, last, i);
                    this.b.list_append(dims, d);
                    Ok(())
                })?;
                let dv = Val { v: dims, ty: Ty::list(Ty::Int) };
                self.schema_call("permute", vec![SArg::V(recv), SArg::V(dv)], vec![], "T", e.span)
            }
            "mT" => {
                let a = self.b.const_int(-2);
                let b = self.b.const_int(-1);
                self.schema_call(
                    "transpose",
                    vec![SArg::V(recv), SArg::V(Val { v: a, ty: Ty::Int }), SArg::V(Val { v: b, ty: Ty::Int })],
                    vec![],
                    "mT",
                    e.span,
                )
            }
            "ndim" => self.schema_call("dim", vec![SArg::V(recv)], vec![], "ndim", e.span),
            "device" => {
                let v = self.b.const_str("cpu");
                Ok(Val { v, ty: Ty::Device })
            }
            "is_cuda" => {
                let v = self.b.const_bool(false);
                Ok(Val { v, ty: Ty::Bool })
            }
            "data" => Ok(recv),
            "dtype" if rs::has_op("dtype") => {
                self.schema_call("dtype", vec![SArg::V(recv)], vec![], "dtype", e.span)
            }
            _ => Err(Diagnostic::error(format!("unknown tensor attribute `{attr}`"))
                .with_primary(aspan, "not supported")
                .with_help("supported attributes: `shape`, `T`, `ndim`, `dtype` (when the runtime provides it)")),
        }
    }

    fn module_attribute(&mut self, e: &Expr, canon: &str) -> R<Val> {
        let (module, name) = canon.rsplit_once('.').unwrap_or(("", canon));
        match module {
            "math" => {
                let f = match name {
                    "pi" => std::f64::consts::PI,
                    "e" => std::f64::consts::E,
                    "tau" => std::f64::consts::TAU,
                    "inf" => f64::INFINITY,
                    "nan" => f64::NAN,
                    _ => {
                        return Err(Diagnostic::error(format!("unknown constant `math.{name}`"))
                            .with_primary(e.span, "not a `math` constant")
                            .with_help(
                                "supported: math.pi, math.e, math.tau, math.inf, math.nan",
                            ));
                    }
                };
                let v = self.b.const_float(f);
                Ok(Val { v, ty: Ty::Float })
            }
            "torch" | "numpy" => {
                if let Some(d) = DType::from_name(name) {
                    let v = self.b.const_dtype(ir_dtype(d));
                    return Ok(Val { v, ty: Ty::DType });
                }
                let f = match name {
                    "pi" => Some(std::f64::consts::PI),
                    "e" => Some(std::f64::consts::E),
                    "inf" => Some(f64::INFINITY),
                    "nan" => Some(f64::NAN),
                    _ => None,
                };
                if let Some(f) = f {
                    let v = self.b.const_float(f);
                    return Ok(Val { v, ty: Ty::Float });
                }
                Err(Diagnostic::error(format!("unknown attribute `{}`", self.m.file.slice(e.span)))
                    .with_primary(e.span, "not a value the compiler knows")
                    .with_help("dtypes (`torch.float32`, `np.float64` …) and `pi`/`e`/`inf`/`nan` are supported"))
            }
            _ => Err(Diagnostic::error(format!(
                "unknown attribute `{}`",
                self.m.file.slice(e.span)
            ))
            .with_primary(e.span, "not a value")),
        }
    }

    /// Dtype equality is known statically only for constants.
    pub(crate) fn dtype_eq(&mut self, eq: bool, l: Val, r: Val, span: Span) -> R<Val> {
        let a = self.const_dtype_of(l.v);
        let b = self.const_dtype_of(r.v);
        match (a, b) {
            (Some(a), Some(b)) => {
                let v = self.b.const_bool((a == b) == eq);
                Ok(Val { v, ty: Ty::Bool })
            }
            _ => {
                let name = if eq { "eq" } else { "ne" };
                self.schema_call(name, vec![SArg::V(l), SArg::V(r)], vec![], "dtype ==", span)
            }
        }
    }

    /// Appends the keyword arguments a shared convention ([`np_conv`]) adds.
    fn add_keywords(&mut self, named: &mut Vec<(String, SArg)>, add: Vec<(&str, np_conv::Added)>) {
        for (k, a) in add {
            let val = match a {
                np_conv::Added::DType(d) => Val {
                    v: self.b.const_dtype(ir_dtype(d)),
                    ty: Ty::DType,
                },
                np_conv::Added::Int(i) => Val {
                    v: self.b.const_int(i),
                    ty: Ty::Int,
                },
            };
            named.push((k.to_string(), SArg::V(val)));
        }
    }

    /// Defaults that PyTorch's Python wrappers supply but the op schemas do not
    /// ([`np_conv::python_level_defaults`]).
    fn python_level_defaults(&mut self, op: &str, pos: &[SArg], named: &mut Vec<(String, SArg)>) {
        let keys: Vec<&str> = named.iter().map(|(k, _)| k.as_str()).collect();
        let add = np_conv::python_level_defaults(op, pos.len(), &keys);
        self.add_keywords(named, add);
    }

    fn const_dtype_of(&self, v: Value) -> Option<pyjit_ir::DType> {
        let op = self.b.func.defining_op(v)?;
        match &self.b.func.op(op).kind {
            pyjit_ir::OpKind::Const(pyjit_ir::Const::DType(d)) => Some(*d),
            _ => None,
        }
    }
}

/// What the shared NumPy conventions ([`np_conv`]) need to know about a positional argument.
fn sarg_kind(a: &SArg) -> np_conv::ArgKind {
    match a {
        SArg::V(v) => match &v.ty {
            Ty::Int => np_conv::ArgKind::Int,
            Ty::Float => np_conv::ArgKind::Float,
            Ty::Bool => np_conv::ArgKind::Bool,
            t @ (Ty::List(_) | Ty::Tuple(_)) if ty_has_float(t) => np_conv::ArgKind::FloatData,
            _ => np_conv::ArgKind::Other,
        },
        _ => np_conv::ArgKind::Other,
    }
}

/// The IR type of a schema return type: [`pyjit_ir::schema::ir_type`]'s, and for the two
/// results it gives none, `Scalar` (`item`) read as float (`Float.Tensor` & co. are preferred)
/// and `Any` as a tensor.
fn ret_type(t: &ArgType) -> Type {
    match t {
        ArgType::Scalar => Type::Float,
        ArgType::Any => Type::tensor(),
        ArgType::Optional(inner) => Type::optional(ret_type(inner)),
        t => pyjit_ir::schema::ir_type(t).unwrap_or_else(Type::tensor),
    }
}

fn ty_has_float(t: &Ty) -> bool {
    match t {
        Ty::Float => true,
        Ty::List(e) => ty_has_float(e),
        Ty::Tuple(ts) => ts.iter().any(ty_has_float),
        _ => false,
    }
}

fn tensor_data_ok(t: &Ty) -> bool {
    match t {
        Ty::Int | Ty::Float | Ty::Bool => true,
        Ty::List(e) => tensor_data_ok(e),
        Ty::Tuple(ts) => ts.iter().all(tensor_data_ok),
        _ => false,
    }
}

/// A binding failure as a diagnostic naming the op as the user spelled it.
fn bind_error(e: BindError, what: &str, span: Span) -> Diagnostic {
    match e {
        BindError::UnknownOp(_) => Diagnostic::error(format!("unknown op `{what}`"))
            .with_primary(span, "not in the op table"),
        BindError::TooManyArguments { max, got, .. } => Diagnostic::error(format!(
            "`{what}` takes at most {max} positional argument{} but {got} were given",
            if max == 1 { "" } else { "s" }
        ))
        .with_primary(span, "too many arguments"),
        BindError::MissingArgument { param, .. } => {
            Diagnostic::error(format!("`{what}` is missing argument `{param}`"))
                .with_primary(span, format!("missing `{param}`"))
        }
        BindError::UnknownKeyword { param, .. } => {
            Diagnostic::error(format!("`{what}` has no parameter named `{param}`"))
                .with_primary(span, format!("unexpected keyword argument `{param}`"))
        }
        BindError::DuplicateArgument { param, .. } => {
            Diagnostic::error(format!("`{what}` got multiple values for `{param}`"))
                .with_primary(span, "given twice")
        }
        BindError::WrongType {
            param,
            expected,
            found,
            ..
        } => Diagnostic::error(format!(
            "argument `{param}` of `{what}` must be `{expected}`, found `{found}`"
        ))
        .with_primary(span, format!("`{param}` has the wrong type")),
        BindError::NoMatchingOverload { candidates, .. } => {
            Diagnostic::error(format!("no overload of `{what}` matches these arguments"))
                .with_primary(span, "arguments do not match")
                .with_note(format!("candidates:\n{candidates}"))
        }
    }
}
