//! The meaning of every IR op that works on Python values only (no tensor kernel, no control
//! flow, no call): scalar operators, casts, `math.*`, `select`, tuples, lists, optionals,
//! strings, subscript components, `print`, `raise`, `check` and `guard`. The interpreter and
//! native code's host function both run these ops through [`eval`], so they compute the same
//! values and raise the same exceptions with the same messages.

use crate::error::{ExcKind, PyErr};
use crate::format::{py_format, py_str};
use crate::scalar;
use crate::value::{Dict, DictKey, Value};
use pyjit_ir::{CmpOp as IrCmp, Const, FloatBinOp, IndexKind, IntBinOp, OpKind};
use pyjit_runtime::TensorIndex;
use pyjit_runtime::schema::PyOperator;
use pyjit_syntax::ast::{BinOp, CmpOp};
use std::io::Write;

/// What evaluating an op needs besides its operands.
pub struct EvalCtx<'a> {
    /// Where `print` writes.
    pub out: &'a mut dyn Write,
}

/// The IR's int operator of a Python binary operator on two ints (`/` is `int.truediv` and `@`
/// is not an int operator: `None`).
pub fn int_operator(op: BinOp) -> Option<IntBinOp> {
    Some(match op {
        BinOp::Add => IntBinOp::Add,
        BinOp::Sub => IntBinOp::Sub,
        BinOp::Mul => IntBinOp::Mul,
        BinOp::FloorDiv => IntBinOp::FloorDiv,
        BinOp::Mod => IntBinOp::Mod,
        BinOp::Pow => IntBinOp::Pow,
        BinOp::BitAnd => IntBinOp::BitAnd,
        BinOp::BitOr => IntBinOp::BitOr,
        BinOp::BitXor => IntBinOp::BitXor,
        BinOp::LShift => IntBinOp::Shl,
        BinOp::RShift => IntBinOp::Shr,
        BinOp::Div | BinOp::MatMul => return None,
    })
}

/// The runtime's tensor operator of a Python binary operator with a tensor operand.
pub fn tensor_operator(op: BinOp) -> PyOperator {
    match op {
        BinOp::Add => PyOperator::Add,
        BinOp::Sub => PyOperator::Sub,
        BinOp::Mul => PyOperator::Mul,
        BinOp::MatMul => PyOperator::MatMul,
        BinOp::Div => PyOperator::Div,
        BinOp::FloorDiv => PyOperator::FloorDiv,
        BinOp::Mod => PyOperator::Mod,
        BinOp::Pow => PyOperator::Pow,
        BinOp::LShift => PyOperator::LShift,
        BinOp::RShift => PyOperator::RShift,
        BinOp::BitOr => PyOperator::BitOr,
        BinOp::BitXor => PyOperator::BitXor,
        BinOp::BitAnd => PyOperator::BitAnd,
    }
}

/// The runtime's tensor operator of a Python comparison with a tensor operand (`is`/`in` are
/// not tensor operators: `None`).
pub fn tensor_comparison(op: CmpOp) -> Option<PyOperator> {
    Some(PyOperator::Cmp(match op {
        CmpOp::Eq => IrCmp::Eq,
        CmpOp::NotEq => IrCmp::Ne,
        CmpOp::Lt => IrCmp::Lt,
        CmpOp::LtE => IrCmp::Le,
        CmpOp::Gt => IrCmp::Gt,
        CmpOp::GtE => IrCmp::Ge,
        CmpOp::Is | CmpOp::IsNot | CmpOp::In | CmpOp::NotIn => return None,
    }))
}

/// The IR's float operator of a Python binary operator with a float operand.
pub fn float_operator(op: BinOp) -> Option<FloatBinOp> {
    Some(match op {
        BinOp::Add => FloatBinOp::Add,
        BinOp::Sub => FloatBinOp::Sub,
        BinOp::Mul => FloatBinOp::Mul,
        BinOp::Div => FloatBinOp::Div,
        BinOp::FloorDiv => FloatBinOp::FloorDiv,
        BinOp::Mod => FloatBinOp::Mod,
        BinOp::Pow => FloatBinOp::Pow,
        BinOp::BitAnd
        | BinOp::BitOr
        | BinOp::BitXor
        | BinOp::LShift
        | BinOp::RShift
        | BinOp::MatMul => return None,
    })
}

/// Python's `KeyError` of a missing dict key: its message is `repr(key)` (`KeyError: 'box'`).
pub fn key_error(k: &Value) -> PyErr {
    PyErr::new(ExcKind::KeyError, crate::format::py_repr(k))
}

/// The exception of `opt.unwrap` of an empty optional.
pub fn unwrap_none() -> PyErr {
    PyErr::new(ExcKind::RuntimeError, "unwrapping None")
}

/// The value of a constant.
pub fn const_value(c: &Const) -> Value {
    match c {
        Const::Int(i) => Value::Int(*i),
        Const::Float(f) => Value::Float(*f),
        Const::Bool(b) => Value::Bool(*b),
        Const::Str(s) => Value::str(s),
        Const::None => Value::None,
        Const::DType(d) => Value::DType(*d),
    }
}

/// The constant of a value, when it has one (scalars, strings, `None`, dtypes).
pub fn value_const(v: &Value) -> Option<Const> {
    Some(match v {
        Value::Int(i) => Const::Int(*i),
        Value::Float(f) => Const::Float(*f),
        Value::Bool(b) => Const::Bool(*b),
        Value::Str(s) => Const::Str(s.to_string()),
        Value::None => Const::None,
        Value::DType(d) => Const::DType(*d),
        _ => return None,
    })
}

fn internal(msg: impl Into<String>) -> PyErr {
    PyErr::new(ExcKind::Internal, msg)
}

/// Python's index normalization: negative counts from the end.
pub fn norm_index(i: i64, len: usize) -> Option<usize> {
    let len = len as i64;
    let j = if i < 0 { i.checked_add(len)? } else { i };
    (0..len).contains(&j).then_some(j as usize)
}

/// Runs a value op on its operands; `None` for an op that is not a value op (tensor ops, calls,
/// regions and terminators other than `raise`). An `Err` of class [`ExcKind::Internal`] means the
/// operands do not fit the op (never for verified IR).
pub fn eval(
    kind: &OpKind,
    args: &[Value],
    ctx: &mut EvalCtx<'_>,
) -> Option<Result<Vec<Value>, PyErr>> {
    eval_value_op(kind, args, ctx).transpose()
}

/// An op's operands (`first`, if given, then `rest`), read with the internal error a malformed
/// op gets.
struct Operands<'a> {
    kind: &'a OpKind,
    first: Option<&'a Value>,
    rest: &'a [Value],
}

impl<'a> Operands<'a> {
    fn arg(&self, i: usize) -> Result<&'a Value, PyErr> {
        let v = match (self.first, i) {
            (Some(a), 0) => Some(a),
            (Some(_), i) => self.rest.get(i - 1),
            (None, i) => self.rest.get(i),
        };
        v.ok_or_else(|| internal(format!("missing operand {i} of `{}`", self.kind.name())))
    }

    fn int(&self, i: usize) -> Result<i64, PyErr> {
        self.arg(i)?
            .as_int()
            .ok_or_else(|| internal("expected an int operand"))
    }

    fn float(&self, i: usize) -> Result<f64, PyErr> {
        self.arg(i)?
            .as_float()
            .ok_or_else(|| internal("expected a float operand"))
    }

    fn boolean(&self, i: usize) -> Result<bool, PyErr> {
        self.arg(i)?
            .as_bool()
            .ok_or_else(|| internal("expected a bool operand"))
    }
}

/// The ops of scalar operands with one result (operators, comparisons, casts, `math.*`,
/// inline element functions) on borrowed operands `a` and, for two-operand ops, `b`: `None`
/// for any other op. [`eval`] answers these ops with it; the interpreter calls it directly so
/// that a scalar op costs no operand or result vector.
pub fn eval_scalar(kind: &OpKind, a: &Value, b: Option<&Value>) -> Option<Result<Value, PyErr>> {
    is_scalar_op(kind).then(|| scalar_value(kind, a, b))
}

/// [`eval_scalar`] of an op [`is_scalar_op`] accepts.
fn scalar_value(kind: &OpKind, a: &Value, b: Option<&Value>) -> Result<Value, PyErr> {
    let ops = Operands {
        kind,
        first: Some(a),
        rest: b.map(std::slice::from_ref).unwrap_or_default(),
    };
    let (arg, int, float, boolean) = (
        |i| ops.arg(i),
        |i| ops.int(i),
        |i| ops.float(i),
        |i| ops.boolean(i),
    );
    let one = |v: Value| Ok(v);
    match kind {
        OpKind::IntBin(o) => one(Value::Int(scalar::int_bin(*o, int(0)?, int(1)?)?)),
        OpKind::IntUn(o) => one(Value::Int(scalar::int_un(*o, int(0)?))),
        OpKind::IntTrueDiv => one(Value::Float(scalar::int_truediv(int(0)?, int(1)?)?)),
        OpKind::FloatBin(o) => one(Value::Float(scalar::float_bin(*o, float(0)?, float(1)?)?)),
        OpKind::FloatUn(o) => one(Value::Float(scalar::float_un(*o, float(0)?))),
        OpKind::IntCmp(c) => one(Value::Bool(scalar::cmp(*c, int(0)?, int(1)?))),
        OpKind::FloatCmp(c) => one(Value::Bool(scalar::float_cmp(*c, float(0)?, float(1)?))),
        OpKind::BoolCmp(c) => one(Value::Bool(scalar::cmp(*c, boolean(0)?, boolean(1)?))),
        OpKind::BoolBin(o) => one(Value::Bool(scalar::bool_bin(*o, boolean(0)?, boolean(1)?))),
        OpKind::Not => one(Value::Bool(!boolean(0)?)),
        OpKind::Cast(c) => match scalar::cast(*c, arg(0)?) {
            Some(r) => one(r?),
            None => Err(internal(format!(
                "`{}` of a {}",
                kind.name(),
                arg(0)?.type_name()
            ))),
        },
        OpKind::Math(m) => {
            let x = float(0)?;
            let y = if m.signature().0 == 2 { float(1)? } else { 0.0 };
            one(scalar::math(*m, x, y)?)
        }
        OpKind::Elem(f, p) => {
            let y = if f.arity() == 2 { float(1)? } else { 0.0 };
            one(Value::Float(pyjit_runtime::ops::elem::eval(
                *f,
                *p,
                float(0)?,
                y,
            )))
        }
        _ => Err(internal(format!("`{}` is not a scalar op", kind.name()))),
    }
}

/// Whether [`eval_scalar`] answers `kind`.
fn is_scalar_op(kind: &OpKind) -> bool {
    kind.is_scalar_arith() || matches!(kind, OpKind::Math(_) | OpKind::Elem(..))
}

/// [`eval`], with `Ok(None)` for an op that is not a value op.
fn eval_value_op(
    kind: &OpKind,
    args: &[Value],
    ctx: &mut EvalCtx<'_>,
) -> Result<Option<Vec<Value>>, PyErr> {
    let ops = Operands {
        kind,
        first: None,
        rest: args,
    };
    let (arg, int, boolean) = (|i| ops.arg(i), |i| ops.int(i), |i| ops.boolean(i));
    let list = |i: usize| match arg(i)? {
        Value::List(l) => Ok(l.clone()),
        other => Err(internal(format!("list op on a {}", other.type_name()))),
    };
    let dict = |i: usize| match arg(i)? {
        Value::Dict(d) => Ok(d.clone()),
        other => Err(internal(format!("dict op on a {}", other.type_name()))),
    };
    let key = |v: &Value| {
        DictKey::of(v).ok_or_else(|| internal(format!("a {} as a dict key", v.type_name())))
    };
    let one = |v: Value| Ok(Some(vec![v]));
    if is_scalar_op(kind) {
        return one(scalar_value(kind, arg(0)?, args.get(1))?);
    }
    match kind {
        OpKind::Const(c) => one(const_value(c)),
        OpKind::Select => one(if boolean(0)? {
            arg(1)?.clone()
        } else {
            arg(2)?.clone()
        }),
        OpKind::Index(k) => one(Value::Index(match k {
            IndexKind::Int => TensorIndex::Int(int(0)?),
            IndexKind::Slice => {
                let bound = |i: usize| match arg(i)? {
                    Value::None => Ok(None),
                    Value::Int(v) => Ok(Some(*v)),
                    _ => Err(internal("slice bound is not an int")),
                };
                let step = int(2)?;
                if step == 0 {
                    return Err(PyErr::new(ExcKind::ValueError, "slice step cannot be zero"));
                }
                TensorIndex::Slice {
                    start: bound(0)?,
                    stop: bound(1)?,
                    step,
                }
            }
            IndexKind::None => TensorIndex::None,
            IndexKind::Ellipsis => TensorIndex::Ellipsis,
            IndexKind::Tensor => TensorIndex::Tensor(
                arg(0)?
                    .as_tensor()
                    .cloned()
                    .ok_or_else(|| internal("index.tensor of a non-tensor"))?,
            ),
        })),
        OpKind::TensorLoad | OpKind::TensorStore => tensor_access(kind, args).map(Some),
        OpKind::TupleNew => one(Value::tuple(args.to_vec())),
        OpKind::TupleGet(i) => match arg(0)? {
            Value::Tuple(items) => one(items
                .get(*i as usize)
                .cloned()
                .ok_or_else(|| internal("tuple index out of range"))?),
            _ => Err(internal("tuple.get of a non-tuple")),
        },
        OpKind::ListNew => one(Value::list(args.to_vec())),
        OpKind::ListGet => {
            let (l, i) = (list(0)?, int(1)?);
            let v = norm_index(i, l.len())
                .and_then(|j| l.get(j))
                .ok_or_else(|| PyErr::new(ExcKind::IndexError, "list index out of range"))?;
            one(v)
        }
        OpKind::ListSet => {
            let (l, i, v) = (list(0)?, int(1)?, arg(2)?.clone());
            if !norm_index(i, l.len()).is_some_and(|j| l.set(j, v)) {
                return Err(PyErr::new(
                    ExcKind::IndexError,
                    "list assignment index out of range",
                ));
            }
            Ok(Some(vec![]))
        }
        OpKind::ListAppend => {
            list(0)?.push(arg(1)?.clone());
            Ok(Some(vec![]))
        }
        OpKind::ListLen => one(Value::Int(list(0)?.len() as i64)),
        OpKind::DictNew => {
            let d = Dict::new();
            for kv in args.chunks(2) {
                let [k, v] = kv else {
                    return Err(internal("`dict.new` needs key/value pairs"));
                };
                d.set(key(k)?, v.clone());
            }
            one(Value::Dict(d))
        }
        OpKind::DictGet => {
            let (d, k) = (dict(0)?, arg(1)?);
            match d.get(&key(k)?) {
                Some(v) => one(v),
                None => Err(key_error(k)),
            }
        }
        OpKind::DictSet => {
            dict(0)?.set(key(arg(1)?)?, arg(2)?.clone());
            Ok(Some(vec![]))
        }
        OpKind::DictContains => one(Value::Bool(dict(0)?.contains(&key(arg(1)?)?))),
        OpKind::DictLen => one(Value::Int(dict(0)?.len() as i64)),
        OpKind::DictKeys => one(Value::list(
            dict(0)?
                .snapshot()
                .into_iter()
                .map(|(k, _)| k.value())
                .collect(),
        )),
        OpKind::DictValues => one(Value::list(
            dict(0)?.snapshot().into_iter().map(|(_, v)| v).collect(),
        )),
        OpKind::DictItems => one(Value::list(
            dict(0)?
                .snapshot()
                .into_iter()
                .map(|(k, v)| Value::tuple(vec![k.value(), v]))
                .collect(),
        )),
        OpKind::OptNone | OpKind::Undef => one(Value::None),
        OpKind::OptWrap => one(arg(0)?.clone()),
        OpKind::OptUnwrap => {
            let v = arg(0)?;
            if v.is_none() {
                return Err(unwrap_none());
            }
            one(v.clone())
        }
        OpKind::OptIsNone => one(Value::Bool(arg(0)?.is_none())),
        OpKind::StrOf(spec) => one(Value::str(
            py_format(arg(0)?, spec).map_err(|m| PyErr::new(ExcKind::ValueError, m))?,
        )),
        OpKind::StrNumPy => one(Value::str(crate::format::py_str_styled(
            arg(0)?,
            crate::format::TensorStyle::NumPy,
        ))),
        OpKind::StrConcat => one(Value::str(args.iter().map(py_str).collect::<String>())),
        OpKind::Print => {
            let line = args.iter().map(py_str).collect::<Vec<_>>().join(" ");
            // A closed stdout is not the program's fault; Python would raise, we keep going.
            let _ = writeln!(ctx.out, "{line}");
            Ok(Some(vec![]))
        }
        OpKind::Raise(class) => Err(PyErr::new(
            ExcKind::from_name(class),
            args.first().map(py_str).unwrap_or_default(),
        )),
        OpKind::Check(class) => {
            if boolean(0)? {
                return Ok(Some(vec![]));
            }
            Err(PyErr::new(
                ExcKind::from_name(class),
                args.get(1).map(py_str).unwrap_or_default(),
            ))
        }
        OpKind::Guard { expected, message } => {
            let holds = match (expected, arg(0)?) {
                (Const::Int(a), Value::Int(b)) => a == b,
                (Const::Bool(a), Value::Bool(b)) => a == b,
                (Const::Float(a), Value::Float(b)) => a.to_bits() == b.to_bits(),
                _ => false,
            };
            if holds {
                Ok(Some(vec![]))
            } else {
                Err(PyErr::new(ExcKind::GuardFailure, message.clone()))
            }
        }
        OpKind::Tensor(_)
        | OpKind::Call(_)
        | OpKind::If
        | OpKind::Loop
        | OpKind::Fused
        | OpKind::Yield
        | OpKind::Return => Ok(None),
        // Answered by `scalar_value` above.
        _ => Err(internal(format!(
            "`{}` reached the general path",
            kind.name()
        ))),
    }
}

/// `tensor.load(%t, %i…)` (`t[i, …].item()`) and `tensor.store(%t, %i…, %v)` (`t[i, …] = v`),
/// through the runtime's own subscript and `index_put_` so that every check (range, dtype
/// conversion) and message is PyTorch's.
fn tensor_access(kind: &OpKind, args: &[Value]) -> Result<Vec<Value>, PyErr> {
    let store = *kind == OpKind::TensorStore;
    let t = args
        .first()
        .and_then(Value::as_tensor)
        .ok_or_else(|| internal(format!("`{}` of a non-tensor", kind.name())))?;
    let end = args.len().saturating_sub(store as usize).max(1);
    let idx = args[1..end]
        .iter()
        .map(|v| v.as_int().map(TensorIndex::Int))
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| internal(format!("`{}` index is not an int", kind.name())))?;
    let rt = |e: pyjit_runtime::RuntimeError| {
        PyErr::new(ExcKind::from_name(e.kind().name()), e.to_string())
    };
    if store {
        let s = match args.last() {
            Some(Value::Int(i)) => pyjit_runtime::Scalar::Int(*i),
            Some(Value::Float(x)) => pyjit_runtime::Scalar::Float(*x),
            Some(Value::Bool(b)) => pyjit_runtime::Scalar::Bool(*b),
            _ => return Err(internal("`tensor.store` of a non-scalar")),
        };
        pyjit_runtime::index::index_put_scalar_(t, &idx, s).map_err(rt)?;
        Ok(vec![])
    } else {
        let e = pyjit_runtime::index::index(t, &idx).map_err(rt)?;
        Ok(vec![Value::from_scalar(e.item().map_err(rt)?)])
    }
}

/// Whether an error raised by `raise`/`check` is the program's own (its message is the
/// program's text, not the runtime's wording).
pub fn raised_by_program(kind: &OpKind) -> bool {
    matches!(kind, OpKind::Raise(_) | OpKind::Check(_))
}
