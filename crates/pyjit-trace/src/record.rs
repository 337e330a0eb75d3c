//! The recorder: builds the IR of a trace while the evaluator runs, op by op, each op with the
//! span of the source that performed it.

use crate::error::TraceError;
use pyjit_ir::{Const, FunctionBuilder, IndexKind, OpKind, Type};
use pyjit_runtime::schema::{ArgKind, ArgType, BindArg, DefaultValue};
use pyjit_runtime::{OpId, TensorIndex, Value as RtValue};
use pyjit_syntax::{Diagnostic, Span};
use std::collections::HashSet;

/// Why a Python value derived from a tensor was guarded; selects the warning's wording.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GuardReason {
    /// A tensor in a condition or a `bool()` call.
    Bool,
    /// `int(t)`.
    Int,
    /// `float(t)`.
    Float,
    /// `t.item()`.
    Number,
    /// An element of `t.tolist()`.
    List,
    /// A size read as a Python int (`x.size(0)`, `x.shape`, `len(x)`, `x.dim()`, `x.numel()`).
    Shape,
    /// Iterating over a tensor's first dimension.
    Iteration,
    /// A non-tensor argument of the traced function.
    Argument,
}

/// One guard of a trace: the value a Python scalar had when traced, and where it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct Guard {
    pub span: Span,
    pub reason: GuardReason,
    pub expected: Const,
    pub message: String,
}

/// The wording of TorchScript's TracerWarning for each reason, followed by what pyjit does.
pub fn warning_text(reason: GuardReason, guards: bool) -> String {
    let head = match reason {
        GuardReason::Bool => {
            "Converting a tensor to a Python boolean might cause the trace to be incorrect. We can't record the data flow of Python values, so this value will be treated as a constant in the future. This means that the trace might not generalize to other inputs!"
        }
        GuardReason::Int => {
            "Converting a tensor to a Python integer might cause the trace to be incorrect. We can't record the data flow of Python values, so this value will be treated as a constant in the future. This means that the trace might not generalize to other inputs!"
        }
        GuardReason::Float => {
            "Converting a tensor to a Python float might cause the trace to be incorrect. We can't record the data flow of Python values, so this value will be treated as a constant in the future. This means that the trace might not generalize to other inputs!"
        }
        GuardReason::List => {
            "Converting a tensor to a Python list might cause the trace to be incorrect. We can't record the data flow of Python values, so this value will be treated as a constant in the future. This means that the trace might not generalize to other inputs!"
        }
        GuardReason::Number => {
            "Converting a tensor to a Python number might cause the trace to be incorrect. We can't record the data flow of Python values, so this value will be treated as a constant in the future. This means that the trace might not generalize to other inputs!"
        }
        GuardReason::Shape => {
            "Converting a tensor's size to a Python integer might cause the trace to be incorrect. We can't record the data flow of Python values, so this value will be treated as a constant in the future. This means that the trace might not generalize to other inputs!"
        }
        GuardReason::Iteration => {
            "Iterating over a tensor might cause the trace to be incorrect. Passing a tensor of different shape won't change the number of iterations executed (and might lead to errors or silently give incorrect results)."
        }
        GuardReason::Argument => {
            "A non-tensor argument is treated as a constant of the trace. This means that the trace might not generalize to other inputs!"
        }
    };
    let tail = if guards {
        "pyjit guards this value: a call where it differs re-traces instead of returning a wrong result."
    } else {
        "guards are disabled (--no-guards): a call where it differs silently reuses this trace, as torch.jit.trace does."
    };
    format!("TracerWarning: {head}\n{tail}")
}

/// An op argument while binding: the runtime value and the IR values of the tensors inside it,
/// in the order they appear (binding keeps that order, so they can be matched afterwards).
#[derive(Clone, Debug)]
pub(crate) struct Arg {
    pub v: RtValue,
    pub handles: Vec<Option<pyjit_ir::Value>>,
    /// Symbolic scalar arguments inside (see [`crate::value::PyVal::Sym`]).
    pub syms: Vec<std::rc::Rc<crate::value::Sym>>,
}

impl Arg {
    /// An argument with no symbolic scalar inside.
    pub fn concrete(v: RtValue, handles: Vec<Option<pyjit_ir::Value>>) -> Arg {
        Arg {
            v,
            handles,
            syms: Vec::new(),
        }
    }
}

impl BindArg for Arg {
    fn kind(&self) -> ArgKind {
        self.v.kind()
    }
    fn from_default(d: &DefaultValue) -> Self {
        Arg::concrete(RtValue::from_default(d), Vec::new())
    }
    fn coerce(self, ty: &ArgType) -> Option<Self> {
        let (handles, syms) = (self.handles, self.syms);
        self.v.coerce(ty).map(|v| Arg { v, handles, syms })
    }
    fn pack_ints(items: Vec<Self>) -> Option<Self> {
        let syms = items.iter().flat_map(|a| a.syms.iter().cloned()).collect();
        RtValue::pack_ints(items.into_iter().map(|a| a.v).collect()).map(|v| Arg {
            v,
            handles: Vec::new(),
            syms,
        })
    }
}

/// The function being recorded, plus its guards and warnings.
pub struct Recorder {
    pub func: pyjit_ir::Function,
    pub guards: Vec<Guard>,
    pub warnings: Vec<Diagnostic>,
    /// Whether guards are emitted (false: `--no-guards`, torch.jit.trace's behaviour).
    pub emit_guards: bool,
    warned: HashSet<(Span, GuardReason)>,
    sym_guarded: HashSet<pyjit_ir::Value>,
}

impl Recorder {
    pub fn new(func: pyjit_ir::Function, emit_guards: bool) -> Recorder {
        Recorder {
            func,
            guards: Vec::new(),
            warnings: Vec::new(),
            emit_guards,
            warned: HashSet::new(),
            sym_guarded: HashSet::new(),
        }
    }

    pub fn builder(&mut self, span: Span) -> FunctionBuilder<'_> {
        let mut b = FunctionBuilder::new(&mut self.func);
        b.set_span(span);
        b
    }

    /// Guards that the list `list` has `len` elements, as it had when traced.
    pub(crate) fn guard_len(
        &mut self,
        list: pyjit_ir::Value,
        len: usize,
        reason: GuardReason,
        what: &str,
        span: Span,
    ) {
        let n = self.builder(span).list_len(list);
        self.guard(n, Const::Int(len as i64), reason, what, span);
    }

    /// Records that scalar IR value `v` had the value `expected` (a guard, unless disabled) and
    /// warns once per source location.
    pub fn guard(
        &mut self,
        v: pyjit_ir::Value,
        expected: Const,
        reason: GuardReason,
        what: &str,
        span: Span,
    ) {
        if self.warned.insert((span, reason)) {
            self.warnings.push(
                Diagnostic::warning(warning_text(reason, self.emit_guards)).with_primary(
                    span,
                    format!("`{what}` was {} when traced", const_text(&expected)),
                ),
            );
        }
        if !self.emit_guards {
            return;
        }
        let message = format!("`{what}` was {} when traced", const_text(&expected));
        self.builder(span)
            .guard(v, expected.clone(), message.clone());
        self.guards.push(Guard {
            span,
            reason,
            expected,
            message,
        });
    }

    /// Makes a symbolic scalar argument a guarded constant (once per argument).
    pub(crate) fn guard_sym(&mut self, sym: &crate::value::Sym) {
        if !self.sym_guarded.insert(sym.ir) {
            return;
        }
        let c = match sym.value {
            crate::value::PyVal::Int(i) => Const::Int(i),
            crate::value::PyVal::Float(x) => Const::Float(x),
            crate::value::PyVal::Bool(b) => Const::Bool(b),
            _ => return,
        };
        // The guard goes where the value was first used as a Python value; the warning points
        // at the parameter.
        self.guard(sym.ir, c, GuardReason::Argument, &sym.what, sym.span);
    }

    /// Emits a constant (or a list of constants / tensors) for a bound op argument.
    pub(crate) fn emit_arg(
        &mut self,
        v: &RtValue,
        handles: &mut std::vec::IntoIter<Option<pyjit_ir::Value>>,
        span: Span,
    ) -> Result<pyjit_ir::Value, TraceError> {
        let mut next = |span: Span| -> Result<pyjit_ir::Value, TraceError> {
            handles.next().flatten().ok_or_else(|| {
                TraceError::unsupported("a tensor whose computation was not recorded", span)
            })
        };
        Ok(match v {
            RtValue::Tensor(_) => next(span)?,
            RtValue::TensorList(ts) => {
                let hs: Vec<_> = ts.iter().map(|_| next(span)).collect::<Result<_, _>>()?;
                self.builder(span).list_new(Type::tensor(), &hs)
            }
            RtValue::Indices(ix) => {
                let mut comps = Vec::new();
                for i in ix {
                    let c = match i {
                        TensorIndex::Int(n) => {
                            let mut b = self.builder(span);
                            let n = b.const_int(*n);
                            b.index(IndexKind::Int, &[n])
                        }
                        TensorIndex::Slice { start, stop, step } => {
                            let mut b = self.builder(span);
                            let mut opt = |x: &Option<i64>| match x {
                                Some(x) => {
                                    let c = b.const_int(*x);
                                    b.opt_wrap(c)
                                }
                                None => b.opt_none(Type::Int),
                            };
                            let s0 = opt(start);
                            let s1 = opt(stop);
                            let st = b.const_int(*step);
                            b.index(IndexKind::Slice, &[s0, s1, st])
                        }
                        TensorIndex::None => self.builder(span).index(IndexKind::None, &[]),
                        TensorIndex::Ellipsis => self.builder(span).index(IndexKind::Ellipsis, &[]),
                        TensorIndex::Tensor(_) => {
                            let h = next(span)?;
                            self.builder(span).index(IndexKind::Tensor, &[h])
                        }
                    };
                    comps.push(c);
                }
                self.builder(span).list_new(Type::Index, &comps)
            }
            other => self.emit_const(other, span)?,
        })
    }

    /// A constant for a tensor-free runtime value.
    pub(crate) fn emit_const(
        &mut self,
        v: &RtValue,
        span: Span,
    ) -> Result<pyjit_ir::Value, TraceError> {
        let mut b = self.builder(span);
        Ok(match v {
            RtValue::None => b.const_none(),
            RtValue::Bool(x) => b.const_bool(*x),
            RtValue::Int(x) => b.const_int(*x),
            RtValue::Float(x) => b.const_float(*x),
            RtValue::Str(s) => b.const_str(s.clone()),
            RtValue::DType(d) => b.const_dtype(*d),
            RtValue::IntList(xs) => {
                let cs: Vec<_> = xs.iter().map(|x| b.const_int(*x)).collect();
                b.list_new(Type::Int, &cs)
            }
            RtValue::FloatList(xs) => {
                let cs: Vec<_> = xs.iter().map(|x| b.const_float(*x)).collect();
                b.list_new(Type::Float, &cs)
            }
            RtValue::BoolList(xs) => {
                let cs: Vec<_> = xs.iter().map(|x| b.const_bool(*x)).collect();
                b.list_new(Type::Bool, &cs)
            }
            RtValue::List(items) => {
                // Literal data (`torch.tensor([[1, 2.5], [3, 4]])`): one element type for the
                // whole nest, as the runtime infers the dtype from all leaves.
                let leaf = leaf_type(v);
                self.emit_data(items, &leaf, span)?
            }
            RtValue::Tensor(_) | RtValue::TensorList(_) | RtValue::Indices(_) => {
                return Err(TraceError::unsupported(
                    "a tensor inside literal data cannot be recorded",
                    span,
                ));
            }
        })
    }

    fn emit_data(
        &mut self,
        items: &[RtValue],
        leaf: &Type,
        span: Span,
    ) -> Result<pyjit_ir::Value, TraceError> {
        let mut vals = Vec::new();
        let mut elem = leaf.clone();
        for it in items {
            let v = match it {
                RtValue::List(inner) => self.emit_data(inner, leaf, span)?,
                RtValue::IntList(_) | RtValue::FloatList(_) | RtValue::BoolList(_) => {
                    let inner: Vec<RtValue> = match it {
                        RtValue::IntList(x) => x.iter().map(|&i| RtValue::Int(i)).collect(),
                        RtValue::FloatList(x) => x.iter().map(|&f| RtValue::Float(f)).collect(),
                        RtValue::BoolList(x) => x.iter().map(|&f| RtValue::Bool(f)).collect(),
                        _ => Vec::new(),
                    };
                    self.emit_data(&inner, leaf, span)?
                }
                scalar => {
                    let c = match (leaf, scalar) {
                        (Type::Float, RtValue::Int(i)) => RtValue::Float(*i as f64),
                        (Type::Float, RtValue::Bool(b)) => RtValue::Float(*b as u8 as f64),
                        (Type::Int, RtValue::Bool(b)) => RtValue::Int(*b as i64),
                        (_, s) => s.clone(),
                    };
                    self.emit_const(&c, span)?
                }
            };
            elem = self.func.value_type(v).clone();
            vals.push(v);
        }
        Ok(self.builder(span).list_new(elem, &vals))
    }

    /// Records tensor op `id` on bound arguments; returns the IR results.
    pub fn tensor_op(
        &mut self,
        id: OpId,
        args: &[Arg],
        span: Span,
    ) -> Result<Vec<pyjit_ir::Value>, TraceError> {
        let mut operands = Vec::with_capacity(args.len());
        for a in args {
            // A symbolic scalar passed as a scalar stays a graph value; inside anything else
            // (an int list, literal data) it becomes a guarded constant.
            if let ([sym], RtValue::Int(_) | RtValue::Float(_) | RtValue::Bool(_)) =
                (a.syms.as_slice(), &a.v)
            {
                let have = self.func.value_type(sym.ir).clone();
                let v = match (&a.v, have) {
                    (RtValue::Float(_), Type::Int) => self
                        .builder(span)
                        .cast(pyjit_ir::CastOp::IntToFloat, sym.ir),
                    (RtValue::Float(_), Type::Bool) => self
                        .builder(span)
                        .cast(pyjit_ir::CastOp::BoolToFloat, sym.ir),
                    (RtValue::Int(_), Type::Bool) => {
                        self.builder(span).cast(pyjit_ir::CastOp::BoolToInt, sym.ir)
                    }
                    _ => sym.ir,
                };
                operands.push(v);
                continue;
            }
            for sym in &a.syms {
                self.guard_sym(sym);
            }
            let mut hs = a.handles.clone().into_iter();
            operands.push(self.emit_arg(&a.v, &mut hs, span)?);
        }
        Ok(self.builder(span).tensor_op(id, &operands))
    }

    /// Records a one-result op of any kind.
    pub fn op1(
        &mut self,
        kind: OpKind,
        operands: &[pyjit_ir::Value],
        ty: Type,
        span: Span,
    ) -> pyjit_ir::Value {
        self.builder(span).insert1(kind, operands, ty)
    }
}

fn leaf_type(v: &RtValue) -> Type {
    fn walk(v: &RtValue, acc: &mut u8) {
        match v {
            RtValue::Bool(_) | RtValue::BoolList(_) => *acc = (*acc).max(1),
            RtValue::Int(_) | RtValue::IntList(_) => *acc = (*acc).max(2),
            RtValue::Float(_) | RtValue::FloatList(_) => *acc = (*acc).max(3),
            RtValue::List(items) => items.iter().for_each(|i| walk(i, acc)),
            _ => {}
        }
    }
    let mut acc = 0;
    walk(v, &mut acc);
    match acc {
        1 => Type::Bool,
        3 => Type::Float,
        _ => Type::Int,
    }
}

pub(crate) fn const_text(c: &Const) -> String {
    match c {
        Const::Int(i) => i.to_string(),
        Const::Float(f) => pyjit_runtime::print::python_float_repr(*f),
        Const::Bool(true) => "True".into(),
        Const::Bool(false) => "False".into(),
        Const::None => "None".into(),
        Const::Str(s) => format!("{s:?}"),
        Const::DType(d) => d.torch_name().into(),
    }
}
