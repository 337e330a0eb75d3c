//! Calling ops by [`OpId`] with dynamically typed [`Value`] arguments.
//!
//! [`call`] takes the arguments in schema order with defaults filled in — exactly what
//! [`bind`] (or [`crate::schema::resolve`]) produces — and returns the results (one value per
//! schema return; `Tensor[]` returns are one [`Value::TensorList`]). Each schema has one kernel,
//! looked up once in a table indexed by `OpId`.

use std::sync::OnceLock;

use smallvec::{SmallVec, smallvec};

pub use crate::schema::{bind, resolve};

use crate::dtype::DType;
use crate::error::{BindError, Result, RuntimeError};
use crate::ops::{self, BinaryOp, CmpOp, Input};
use crate::schema::{self, OpId};
use crate::tensor::{Tensor, fmt_list};
use crate::value::{Scalar, TensorIndex, Value};

/// The results of an op call: one value per schema return, inline (no allocation for the
/// usual one or two).
pub type Outputs = SmallVec<[Value; 2]>;

type Kernel = fn(&[Value]) -> Result<Outputs>;

/// Calls op `id` with arguments in schema order (defaults filled in; see [`bind`]).
pub fn call(id: OpId, args: &[Value]) -> Result<Outputs> {
    let s = schema::schema(id);
    if args.len() != s.params.len() {
        return Err(RuntimeError::Bind(BindError::TooManyArguments {
            op: s.qualified_name(),
            max: s.params.len(),
            got: args.len(),
        }));
    }
    let k = kernels().get(id.0 as usize).copied().unwrap_or(missing);
    k(args)
}

/// [`call`] for a caller that gives up its arguments (values dead after the op). When the op
/// has an in-place form and its first argument is a float tensor whose storage nobody else
/// references (the caller dropped its own handle; see [`Tensor::unique_contiguous_mut`]),
/// the result is written over that argument instead of a fresh buffer: the vector-math unary
/// ops, float `abs` and `neg`, and float `add`/`sub` (alpha 1), `mul`, `div` whose result has
/// the first operand's dtype and shape. Results are the same as [`call`]'s, bit for bit.
pub fn call_owned(id: OpId, mut args: Vec<Value>) -> Result<Outputs> {
    call_owned_in(id, &mut args)
}

/// [`call_owned`] on arguments the caller keeps the list of: the first one is taken out (left
/// `Value::None`) when the in-place form runs; the caller drops the rest.
pub fn call_owned_in(id: OpId, args: &mut [Value]) -> Result<Outputs> {
    let s = schema::schema(id);
    if args.len() == s.params.len()
        && let Some(k) = owned_kernels().get(id.0 as usize).copied().flatten()
        && let Some(Value::Tensor(_)) = args.first()
    {
        let Value::Tensor(first) = std::mem::replace(&mut args[0], Value::None) else {
            unreachable!("checked above")
        };
        return k(first, args);
    }
    call(id, args)
}

/// Whether [`call_owned`] has an in-place form for op `id` (native code then hands over a dead
/// first operand instead of keeping its reference across the call).
pub fn has_owned_kernel(id: OpId) -> bool {
    owned_kernels()
        .get(id.0 as usize)
        .copied()
        .flatten()
        .is_some()
}

/// An op's in-place form: the first argument by value, the others as in [`call`].
type OwnedKernel = fn(Tensor, &[Value]) -> Result<Outputs>;

fn owned_kernels() -> &'static [Option<OwnedKernel>] {
    static K: OnceLock<Vec<Option<OwnedKernel>>> = OnceLock::new();
    K.get_or_init(|| {
        schema::all()
            .map(|(_, s)| owned_kernel_for(&s.name, &s.overload))
            .collect()
    })
}

fn owned_kernel_for(name: &str, overload: &str) -> Option<OwnedKernel> {
    use crate::ops::vmath::k as vk;
    use BinaryOp::*;
    macro_rules! unary {
        ($k:expr) => {
            |t, _| one(ops::vector_unary_owned(t, $k)?)
        };
    }
    macro_rules! owned_unary {
        ($($op:ident => $k:ident,)*) => {
            match name {
                $(stringify!($op) => return Some(unary!(vk::$k)),)*
                _ => {}
            }
        };
    }
    ops::with_vector_unary_ops!(owned_unary);
    let k: OwnedKernel = match (name, overload) {
        ("add", "Tensor" | "Scalar") => |t, a| add_owned(t, a, Add),
        ("sub", "Tensor" | "Scalar") => |t, a| add_owned(t, a, Sub),
        ("mul", "Tensor" | "Scalar") => |t, a| one(ops::binary_owned(Mul, t, input(a, 1)?)?),
        ("div", "Tensor" | "Scalar") => |t, a| one(ops::binary_owned(Div, t, input(a, 1)?)?),
        ("abs", "") => |t, _| one(ops::sign_op_owned(t, vk::Abs, ops::abs)?),
        ("neg", "") => |t, _| one(ops::sign_op_owned(t, vk::Neg, ops::neg)?),
        _ => return None,
    };
    Some(k)
}

/// `add`/`sub` with the first operand given up: in place when `alpha` is 1, else [`add_like`].
fn add_owned(t: Tensor, a: &[Value], op: BinaryOp) -> Result<Outputs> {
    match sc(a, 2)? {
        Scalar::Int(1) | Scalar::Float(1.0) => one(ops::binary_owned(op, t, input(a, 1)?)?),
        _ => {
            let mut args = a.to_vec();
            args[0] = Value::Tensor(t);
            add_like(&args, op == BinaryOp::Sub, false)
        }
    }
}

/// Resolves the overload of `name`, binds and calls it: the one-stop entry for eager callers.
pub fn call_by_name(
    name: &str,
    positional: Vec<Value>,
    keywords: Vec<(String, Value)>,
) -> Result<Outputs> {
    let (id, args) = resolve(name, positional, keywords)?;
    call(id, &args)
}

fn missing(_: &[Value]) -> Result<Outputs> {
    Err(RuntimeError::NotImplemented("op has no kernel".into()))
}

fn kernels() -> &'static [Kernel] {
    static K: OnceLock<Vec<Kernel>> = OnceLock::new();
    K.get_or_init(|| {
        schema::all()
            .map(|(_, s)| kernel_for(&s.name, &s.overload).unwrap_or(missing))
            .collect()
    })
}

/// Whether every schema has a kernel (checked by a test).
pub fn has_kernel(id: OpId) -> bool {
    let s = schema::schema(id);
    kernel_for(&s.name, &s.overload).is_some()
}

// ------------------------------------------------------------------------------- arg access

fn wrong(i: usize, want: &str, got: &Value) -> RuntimeError {
    RuntimeError::Bind(BindError::WrongType {
        op: "call".into(),
        param: format!("#{i}"),
        expected: want.into(),
        found: got.type_name().into(),
    })
}

fn arg(a: &[Value], i: usize) -> Result<&Value> {
    a.get(i).ok_or_else(|| {
        RuntimeError::Bind(BindError::MissingArgument {
            op: "call".into(),
            param: format!("#{i}"),
        })
    })
}

fn t(a: &[Value], i: usize) -> Result<&Tensor> {
    let v = arg(a, i)?;
    v.as_tensor().ok_or_else(|| wrong(i, "Tensor", v))
}

fn sc(a: &[Value], i: usize) -> Result<Scalar> {
    let v = arg(a, i)?;
    v.as_scalar().ok_or_else(|| wrong(i, "Scalar", v))
}

fn int(a: &[Value], i: usize) -> Result<i64> {
    let v = arg(a, i)?;
    match v {
        Value::Int(x) => Ok(*x),
        Value::Bool(b) => Ok(*b as i64),
        _ => Err(wrong(i, "int", v)),
    }
}

fn boolean(a: &[Value], i: usize) -> Result<bool> {
    let v = arg(a, i)?;
    v.as_bool().ok_or_else(|| wrong(i, "bool", v))
}

fn float(a: &[Value], i: usize) -> Result<f64> {
    let v = arg(a, i)?;
    match v {
        Value::Bool(b) => Ok(*b as u8 as f64),
        _ => v.as_float().ok_or_else(|| wrong(i, "float", v)),
    }
}

fn opt_dtype(a: &[Value], i: usize) -> Result<Option<DType>> {
    match arg(a, i)? {
        Value::None => Ok(None),
        Value::DType(d) => Ok(Some(*d)),
        v => Err(wrong(i, "ScalarType?", v)),
    }
}

fn dtype(a: &[Value], i: usize) -> Result<DType> {
    let v = arg(a, i)?;
    v.as_dtype().ok_or_else(|| wrong(i, "ScalarType", v))
}

fn ints(a: &[Value], i: usize) -> Result<Vec<i64>> {
    let v = arg(a, i)?;
    v.as_int_list().ok_or_else(|| wrong(i, "int[]", v))
}

fn opt_ints(a: &[Value], i: usize) -> Result<Option<Vec<i64>>> {
    match arg(a, i)? {
        Value::None => Ok(None),
        _ => ints(a, i).map(Some),
    }
}

fn opt_int(a: &[Value], i: usize) -> Result<Option<i64>> {
    match arg(a, i)? {
        Value::None => Ok(None),
        _ => int(a, i).map(Some),
    }
}

fn opt_sc(a: &[Value], i: usize) -> Result<Option<Scalar>> {
    match arg(a, i)? {
        Value::None => Ok(None),
        _ => sc(a, i).map(Some),
    }
}

fn opt_t(a: &[Value], i: usize) -> Result<Option<&Tensor>> {
    match arg(a, i)? {
        Value::None => Ok(None),
        _ => t(a, i).map(Some),
    }
}

fn string(a: &[Value], i: usize) -> Result<Option<&str>> {
    match arg(a, i)? {
        Value::None => Ok(None),
        Value::Str(s) => Ok(Some(s)),
        v => Err(wrong(i, "str", v)),
    }
}

fn tensors(a: &[Value], i: usize) -> Result<Vec<Tensor>> {
    match arg(a, i)? {
        Value::TensorList(v) => Ok(v.clone()),
        Value::List(items) => items
            .iter()
            .map(|v| {
                v.as_tensor()
                    .cloned()
                    .ok_or_else(|| wrong(i, "Tensor[]", v))
            })
            .collect(),
        v => Err(wrong(i, "Tensor[]", v)),
    }
}

fn indices(a: &[Value], i: usize) -> Result<&[TensorIndex]> {
    match arg(a, i)? {
        Value::Indices(v) => Ok(v),
        v => Err(wrong(i, "Index[]", v)),
    }
}

fn one(t: Tensor) -> Result<Outputs> {
    Ok(smallvec![Value::Tensor(t)])
}

fn pair((x, y): (Tensor, Tensor)) -> Result<Outputs> {
    Ok(smallvec![Value::Tensor(x), Value::Tensor(y)])
}

fn list(v: Vec<Tensor>) -> Result<Outputs> {
    Ok(smallvec![Value::TensorList(v)])
}

/// Input operand from an argument that is either a tensor or a Python scalar.
fn input(a: &[Value], i: usize) -> Result<Input<'_>> {
    let v = arg(a, i)?;
    match v {
        Value::Tensor(t) => Ok(Input::T(t)),
        _ => v
            .as_scalar()
            .map(Input::S)
            .ok_or_else(|| wrong(i, "Tensor or Scalar", v)),
    }
}

fn bin(op: BinaryOp, a: &[Value]) -> Result<Outputs> {
    one(ops::binary(op, input(a, 0)?, input(a, 1)?)?)
}

/// Writes `result` into `target` with the rules of in-place ops: the result must have the
/// target's shape (no broadcasting of the target) and be castable to its dtype.
pub fn write_inplace(target: &Tensor, result: &Tensor) -> Result<Tensor> {
    target.assert_no_internal_overlap()?;
    if result.shape() != target.shape() {
        return Err(RuntimeError::Shape(format!(
            "output with shape [{}] doesn't match the broadcast shape [{}]",
            fmt_list(target.shape()),
            fmt_list(result.shape())
        )));
    }
    if !DType::can_cast(result.dtype(), target.dtype()) {
        return Err(RuntimeError::DType(format!(
            "result type {} can't be cast to the desired output type {}",
            result.dtype().scalar_type_name(),
            target.dtype().scalar_type_name()
        )));
    }
    target.copy_(result)?;
    Ok(target.clone())
}

/// PyTorch's overlap checks of an in-place op writing `target` and reading `other`, made before
/// computing anything (`y -= y[0]` raises instead of reading a half-written `y`).
fn check_inplace(target: &Tensor, other: &Input<'_>) -> Result<()> {
    target.assert_no_internal_overlap()?;
    match other {
        Input::T(o) => target.assert_no_partial_overlap(o),
        Input::S(_) => Ok(()),
    }
}

fn inplace_bin(op: BinaryOp, a: &[Value]) -> Result<Outputs> {
    let target = t(a, 0)?;
    let other = input(a, 1)?;
    check_inplace(target, &other)?;
    let r = ops::binary(op, Input::T(target), other)?;
    one(write_inplace(target, &r)?)
}

fn add_like(a: &[Value], subtract: bool, reverse: bool) -> Result<Outputs> {
    let alpha = sc(a, 2)?;
    let (x, y) = (input(a, 0)?, input(a, 1)?);
    if reverse {
        one(ops::add_alpha(y, x, alpha, subtract)?)
    } else {
        one(ops::add_alpha(x, y, alpha, subtract)?)
    }
}

fn scalar_value(s: Scalar) -> Value {
    Value::scalar(s)
}

/// Python's `bool(t)` (also an `if`/`while` condition): PyTorch's `Tensor.__bool__` refuses any
/// tensor without exactly one element with a `RuntimeError` (unlike `int()`/`float()`, whose
/// refusal comes from Python's number protocol as a `ValueError`).
fn truth_of(x: &Tensor) -> Result<bool> {
    match x.numel() {
        1 => Ok(x.item()?.to_bool()),
        0 => Err(RuntimeError::Value(
            "Boolean value of Tensor with no values is ambiguous".into(),
        )),
        _ => Err(RuntimeError::Value(
            "Boolean value of Tensor with more than one value is ambiguous".into(),
        )),
    }
}

/// Python's `float(t)`/`int(t)`: like `item()` but a ValueError in PyTorch's words.
fn item_of(x: &Tensor) -> Result<Scalar> {
    if x.numel() != 1 {
        return Err(RuntimeError::ValueError(
            "only one element tensors can be converted to Python scalars".into(),
        ));
    }
    x.item()
}

// ------------------------------------------------------------------------------- the table

fn kernel_for(name: &str, overload: &str) -> Option<Kernel> {
    use BinaryOp::*;
    let k: Kernel = match (name, overload) {
        // str and dtype equality (TorchScript's `aten::eq.str`)
        ("eq", "str") => |a| Ok(smallvec![Value::Bool(string(a, 0)? == string(a, 1)?)]),
        ("ne", "str") => |a| Ok(smallvec![Value::Bool(string(a, 0)? != string(a, 1)?)]),
        ("eq", "ScalarType") => |a| Ok(smallvec![Value::Bool(dtype(a, 0)? == dtype(a, 1)?)]),
        ("ne", "ScalarType") => |a| Ok(smallvec![Value::Bool(dtype(a, 0)? != dtype(a, 1)?)]),
        // creation
        ("zeros", _) => |a| one(ops::zeros(&ints(a, 0)?, opt_dtype(a, 1)?)?),
        ("ones", _) => |a| one(ops::ones(&ints(a, 0)?, opt_dtype(a, 1)?)?),
        ("empty", _) => |a| one(ops::empty(&ints(a, 0)?, opt_dtype(a, 1)?)?),
        ("full", _) => |a| one(ops::full(&ints(a, 0)?, sc(a, 1)?, opt_dtype(a, 2)?)?),
        ("arange", "") => |a| {
            one(ops::arange(
                Scalar::Int(0),
                sc(a, 0)?,
                Scalar::Int(1),
                opt_dtype(a, 1)?,
            )?)
        },
        ("arange", "start") => |a| {
            one(ops::arange(
                sc(a, 0)?,
                sc(a, 1)?,
                Scalar::Int(1),
                opt_dtype(a, 2)?,
            )?)
        },
        ("arange", "start_step") => |a| {
            one(ops::arange(
                sc(a, 0)?,
                sc(a, 1)?,
                sc(a, 2)?,
                opt_dtype(a, 3)?,
            )?)
        },
        ("linspace", _) => |a| {
            one(ops::linspace(
                sc(a, 0)?,
                sc(a, 1)?,
                int(a, 2)?,
                opt_dtype(a, 3)?,
            )?)
        },
        ("eye", "") => |a| one(ops::eye(int(a, 0)?, None, opt_dtype(a, 1)?)?),
        ("eye", "m") => |a| one(ops::eye(int(a, 0)?, Some(int(a, 1)?), opt_dtype(a, 2)?)?),
        ("zeros_like", _) => |a| one(ops::zeros_like(t(a, 0)?, opt_dtype(a, 1)?)?),
        ("ones_like", _) => |a| one(ops::ones_like(t(a, 0)?, opt_dtype(a, 1)?)?),
        ("empty_like", _) => |a| one(ops::zeros_like(t(a, 0)?, opt_dtype(a, 1)?)?),
        ("full_like", _) => |a| one(ops::full_like(t(a, 0)?, sc(a, 1)?, opt_dtype(a, 2)?)?),
        ("tensor" | "as_tensor", _) => |a| one(ops::tensor(arg(a, 0)?, opt_dtype(a, 1)?)?),
        ("scalar_tensor", _) => |a| one(ops::scalar_tensor(sc(a, 0)?, opt_dtype(a, 1)?)),
        // binary
        ("add", _) => |a| add_like(a, false, false),
        ("sub", _) => |a| add_like(a, true, false),
        ("rsub", _) => |a| add_like(a, true, true),
        ("mul", _) => |a| bin(Mul, a),
        ("div", "Tensor" | "Scalar") | ("true_divide", _) => |a| bin(Div, a),
        ("div", _) => |a| one(ops::div_mode(input(a, 0)?, input(a, 1)?, string(a, 2)?)?),
        ("rdiv", _) => |a| one(ops::binary(Div, input(a, 1)?, input(a, 0)?)?),
        ("floor_divide", _) => |a| bin(DivFloor, a),
        ("rfloordiv", _) => |a| one(ops::binary(DivFloor, input(a, 1)?, input(a, 0)?)?),
        ("remainder", _) => |a| bin(Remainder, a),
        ("fmod", _) => |a| bin(Fmod, a),
        ("pow", _) => |a| bin(Pow, a),
        ("atan2", _) => |a| bin(Atan2, a),
        ("maximum", _) | ("max", "other") => |a| bin(Maximum, a),
        ("minimum", _) | ("min", "other") => |a| bin(Minimum, a),
        ("eq", _) => |a| bin(Cmp(CmpOp::Eq), a),
        ("ne", _) => |a| bin(Cmp(CmpOp::Ne), a),
        ("lt", _) => |a| bin(Cmp(CmpOp::Lt), a),
        ("le", _) => |a| bin(Cmp(CmpOp::Le), a),
        ("gt", _) => |a| bin(Cmp(CmpOp::Gt), a),
        ("ge", _) => |a| bin(Cmp(CmpOp::Ge), a),
        ("logical_and", _) => |a| bin(LogicalAnd, a),
        ("logical_or", _) => |a| bin(LogicalOr, a),
        ("logical_xor", _) => |a| bin(LogicalXor, a),
        ("bitwise_and", _) => |a| bin(BitAnd, a),
        ("bitwise_or", _) => |a| bin(BitOr, a),
        ("bitwise_xor", _) => |a| bin(BitXor, a),
        ("bitwise_left_shift", _) => |a| bin(Shl, a),
        ("bitwise_right_shift", _) => |a| bin(Shr, a),
        // unary
        ("neg", _) => |a| one(ops::neg(t(a, 0)?)?),
        ("positive", _) => |a| one(ops::positive(t(a, 0)?)?),
        ("abs", _) => |a| one(ops::abs(t(a, 0)?)?),
        ("sign", _) => |a| one(ops::sign(t(a, 0)?)?),
        ("exp", _) => |a| one(ops::exp(t(a, 0)?)?),
        ("expm1", _) => |a| one(ops::expm1(t(a, 0)?)?),
        ("log", _) => |a| one(ops::log(t(a, 0)?)?),
        ("log1p", _) => |a| one(ops::log1p(t(a, 0)?)?),
        ("log2", _) => |a| one(ops::log2(t(a, 0)?)?),
        ("log10", _) => |a| one(ops::log10(t(a, 0)?)?),
        ("sqrt", _) => |a| one(ops::sqrt(t(a, 0)?)?),
        ("rsqrt", _) => |a| one(ops::rsqrt(t(a, 0)?)?),
        ("reciprocal", _) => |a| one(ops::reciprocal(t(a, 0)?)?),
        ("square", _) => |a| one(ops::square(t(a, 0)?)?),
        ("sin", _) => |a| one(ops::sin(t(a, 0)?)?),
        ("cos", _) => |a| one(ops::cos(t(a, 0)?)?),
        ("tan", _) => |a| one(ops::tan(t(a, 0)?)?),
        ("tanh", _) => |a| one(ops::tanh(t(a, 0)?)?),
        ("tanh_fast", _) => |a| one(ops::tanh_fast(t(a, 0)?)?),
        ("asin", _) => |a| one(ops::asin(t(a, 0)?)?),
        ("acos", _) => |a| one(ops::acos(t(a, 0)?)?),
        ("atan", _) => |a| one(ops::atan(t(a, 0)?)?),
        ("sinh", _) => |a| one(ops::sinh(t(a, 0)?)?),
        ("cosh", _) => |a| one(ops::cosh(t(a, 0)?)?),
        ("sigmoid", _) => |a| one(ops::sigmoid(t(a, 0)?)?),
        ("erf", _) => |a| one(ops::erf(t(a, 0)?)?),
        ("relu", _) => |a| one(ops::relu(t(a, 0)?)?),
        ("gelu", _) => |a| one(ops::gelu(t(a, 0)?, string(a, 1)?.unwrap_or("none"))?),
        ("silu", _) => |a| one(ops::silu(t(a, 0)?)?),
        ("softplus", _) => |a| one(ops::softplus(t(a, 0)?, float(a, 1)?, float(a, 2)?)?),
        ("leaky_relu", _) => |a| one(ops::leaky_relu(t(a, 0)?, float(a, 1)?)?),
        ("floor", _) => |a| one(ops::floor(t(a, 0)?)?),
        ("ceil", _) => |a| one(ops::ceil(t(a, 0)?)?),
        ("round", "") => |a| one(ops::round(t(a, 0)?)?),
        ("round", "decimals") => |a| one(ops::round_decimals(t(a, 0)?, int(a, 1)?)?),
        ("trunc", _) => |a| one(ops::trunc(t(a, 0)?)?),
        ("clamp" | "clip", "") => |a| {
            let (lo, hi) = (opt_sc(a, 1)?, opt_sc(a, 2)?);
            one(ops::clamp(t(a, 0)?, lo.map(Input::S), hi.map(Input::S))?)
        },
        ("clamp" | "clip", "Tensor") => |a| {
            let (lo, hi) = (opt_t(a, 1)?, opt_t(a, 2)?);
            one(ops::clamp(t(a, 0)?, lo.map(Input::T), hi.map(Input::T))?)
        },
        ("logical_not", _) => |a| one(ops::logical_not(t(a, 0)?)?),
        ("bitwise_not", _) => |a| one(ops::bitwise_not(t(a, 0)?)?),
        ("isnan", _) => |a| one(ops::isnan(t(a, 0)?)?),
        ("isinf", _) => |a| one(ops::isinf(t(a, 0)?)?),
        ("isfinite", _) => |a| one(ops::isfinite(t(a, 0)?)?),
        ("where", "self" | "ScalarOther" | "ScalarSelf" | "Scalar") => {
            |a| one(ops::where_(t(a, 0)?, input(a, 1)?, input(a, 2)?)?)
        }
        // reductions
        ("sum", "") => |a| one(ops::sum(t(a, 0)?, None, false, opt_dtype(a, 1)?)?),
        ("sum", _) => |a| {
            one(ops::sum(
                t(a, 0)?,
                opt_ints(a, 1)?.as_deref(),
                boolean(a, 2)?,
                opt_dtype(a, 3)?,
            )?)
        },
        ("mean", "") => |a| one(ops::mean(t(a, 0)?, None, false, opt_dtype(a, 1)?)?),
        ("mean", _) => |a| {
            one(ops::mean(
                t(a, 0)?,
                opt_ints(a, 1)?.as_deref(),
                boolean(a, 2)?,
                opt_dtype(a, 3)?,
            )?)
        },
        ("prod", "") => |a| one(ops::prod(t(a, 0)?, None, false, opt_dtype(a, 1)?)?),
        ("prod", _) => |a| {
            one(ops::prod(
                t(a, 0)?,
                Some(&[int(a, 1)?]),
                boolean(a, 2)?,
                opt_dtype(a, 3)?,
            )?)
        },
        ("max", "") => |a| one(ops::max_all(t(a, 0)?)?),
        ("max", "dim") => |a| pair(ops::max_dim(t(a, 0)?, int(a, 1)?, boolean(a, 2)?)?),
        ("min", "") => |a| one(ops::min_all(t(a, 0)?)?),
        ("min", "dim") => |a| pair(ops::min_dim(t(a, 0)?, int(a, 1)?, boolean(a, 2)?)?),
        ("amax", _) => |a| one(ops::amax(t(a, 0)?, &ints(a, 1)?, boolean(a, 2)?)?),
        ("amin", _) => |a| one(ops::amin(t(a, 0)?, &ints(a, 1)?, boolean(a, 2)?)?),
        ("argmax", _) => |a| one(ops::argmax(t(a, 0)?, opt_int(a, 1)?, boolean(a, 2)?)?),
        ("argmin", _) => |a| one(ops::argmin(t(a, 0)?, opt_int(a, 1)?, boolean(a, 2)?)?),
        ("all", "") => |a| one(ops::all(t(a, 0)?, None, false)?),
        ("all", _) => |a| one(ops::all(t(a, 0)?, Some(int(a, 1)?), boolean(a, 2)?)?),
        ("any", "") => |a| one(ops::any(t(a, 0)?, None, false)?),
        ("any", _) => |a| one(ops::any(t(a, 0)?, Some(int(a, 1)?), boolean(a, 2)?)?),
        ("var", "") => |a| {
            one(ops::var(
                t(a, 0)?,
                None,
                boolean(a, 1)? as u8 as f64,
                false,
            )?)
        },
        ("var", "dim") => |a| {
            one(ops::var(
                t(a, 0)?,
                opt_ints(a, 1)?.as_deref(),
                boolean(a, 2)? as u8 as f64,
                boolean(a, 3)?,
            )?)
        },
        ("var", _) => |a| {
            one(ops::var(
                t(a, 0)?,
                opt_ints(a, 1)?.as_deref(),
                opt_sc(a, 2)?.map_or(1.0, Scalar::to_f64),
                boolean(a, 3)?,
            )?)
        },
        ("std", "") => |a| {
            one(ops::std(
                t(a, 0)?,
                None,
                boolean(a, 1)? as u8 as f64,
                false,
            )?)
        },
        ("std", "dim") => |a| {
            one(ops::std(
                t(a, 0)?,
                opt_ints(a, 1)?.as_deref(),
                boolean(a, 2)? as u8 as f64,
                boolean(a, 3)?,
            )?)
        },
        ("std", _) => |a| {
            one(ops::std(
                t(a, 0)?,
                opt_ints(a, 1)?.as_deref(),
                opt_sc(a, 2)?.map_or(1.0, Scalar::to_f64),
                boolean(a, 3)?,
            )?)
        },
        ("norm", "Scalar") => |a| one(ops::norm(t(a, 0)?, float(a, 1)?, None, false)?),
        ("norm", _) => |a| {
            one(ops::norm(
                t(a, 0)?,
                opt_sc(a, 1)?.map_or(2.0, Scalar::to_f64),
                Some(&ints(a, 2)?),
                boolean(a, 3)?,
            )?)
        },
        ("logsumexp", _) => |a| one(ops::logsumexp(t(a, 0)?, &ints(a, 1)?, boolean(a, 2)?)?),
        ("softmax", _) => |a| one(ops::softmax(t(a, 0)?, int(a, 1)?, opt_dtype(a, 2)?)?),
        ("log_softmax", _) => |a| one(ops::log_softmax(t(a, 0)?, int(a, 1)?, opt_dtype(a, 2)?)?),
        ("cumsum", _) => |a| one(ops::cumsum(t(a, 0)?, int(a, 1)?, opt_dtype(a, 2)?)?),
        ("cumprod", _) => |a| one(ops::cumprod(t(a, 0)?, int(a, 1)?, opt_dtype(a, 2)?)?),
        // linear algebra
        ("matmul", _) => |a| one(ops::matmul(t(a, 0)?, t(a, 1)?)?),
        ("mm", _) => |a| one(ops::mm(t(a, 0)?, t(a, 1)?)?),
        ("bmm", _) => |a| one(ops::bmm(t(a, 0)?, t(a, 1)?)?),
        ("mv", _) => |a| one(ops::mv(t(a, 0)?, t(a, 1)?)?),
        ("dot", _) => |a| one(ops::dot(t(a, 0)?, t(a, 1)?)?),
        ("outer", _) => |a| one(ops::outer(t(a, 0)?, t(a, 1)?)?),
        ("t", _) => |a| one(t(a, 0)?.t()?),
        ("linear", _) => |a| one(ops::linear(t(a, 0)?, t(a, 1)?, opt_t(a, 2)?)?),
        // shape
        ("size", "") => |a| {
            Ok(smallvec![Value::IntList(
                t(a, 0)?.shape().iter().map(|&d| d as i64).collect(),
            )])
        },
        ("size", _) => |a| Ok(smallvec![Value::Int(t(a, 0)?.size(int(a, 1)?)? as i64)]),
        ("dim", _) => |a| Ok(smallvec![Value::Int(t(a, 0)?.dim() as i64)]),
        ("numel", _) => |a| Ok(smallvec![Value::Int(t(a, 0)?.numel() as i64)]),
        ("reshape", _) => |a| one(t(a, 0)?.reshape(&ints(a, 1)?)?),
        ("view", _) => |a| one(t(a, 0)?.view(&ints(a, 1)?)?),
        ("flatten", _) => |a| one(t(a, 0)?.flatten(int(a, 1)?, int(a, 2)?)?),
        ("squeeze", "") => |a| one(t(a, 0)?.squeeze()),
        ("squeeze", _) => |a| one(t(a, 0)?.squeeze_dim(int(a, 1)?)?),
        ("unsqueeze", _) => |a| one(t(a, 0)?.unsqueeze(int(a, 1)?)?),
        ("transpose", _) => |a| one(t(a, 0)?.transpose(int(a, 1)?, int(a, 2)?)?),
        ("permute", _) => |a| one(t(a, 0)?.permute(&ints(a, 1)?)?),
        ("expand", _) => |a| one(t(a, 0)?.expand(&ints(a, 1)?)?),
        ("expand_as", _) => |a| one(t(a, 0)?.broadcast_to(t(a, 1)?.shape())?),
        ("contiguous", _) => |a| one(t(a, 0)?.contiguous()?),
        ("clone", _) => |a| one(t(a, 0)?.clone_data()?),
        ("np_element", _) => |a| one(t(a, 0)?.numpy_element()?),
        ("cat", _) => |a| one(ops::cat(&tensors(a, 0)?, int(a, 1)?)?),
        ("stack", _) => |a| one(ops::stack(&tensors(a, 0)?, int(a, 1)?)?),
        ("split", "Tensor") => |a| list(ops::split(t(a, 0)?, int(a, 1)?, int(a, 2)?)?),
        ("split", _) => |a| list(ops::split_sizes(t(a, 0)?, &ints(a, 1)?, int(a, 2)?)?),
        ("chunk", _) => |a| list(ops::chunk(t(a, 0)?, int(a, 1)?, int(a, 2)?)?),
        ("flip", _) => |a| one(ops::flip(t(a, 0)?, &ints(a, 1)?)?),
        ("repeat", _) => |a| one(ops::repeat(t(a, 0)?, &ints(a, 1)?)?),
        // conversion
        ("item", _) => |a| Ok(smallvec![scalar_value(t(a, 0)?.item()?)]),
        ("to" | "type_as", "other" | "") => |a| one(t(a, 0)?.to_dtype(t(a, 1)?.dtype())?),
        ("to" | "type", _) => |a| one(t(a, 0)?.to_dtype(dtype(a, 1)?)?),
        ("dtype", _) => |a| Ok(smallvec![Value::DType(t(a, 0)?.dtype())]),
        ("tolist_int", _) => |a| {
            Ok(smallvec![Value::IntList(
                ops::tolist_of(t(a, 0)?, false)?.0
            )])
        },
        ("tolist_float", _) => |a| {
            Ok(smallvec![Value::FloatList(
                ops::tolist_of(t(a, 0)?, true)?.1
            )])
        },
        ("is_floating_point", _) => |a| Ok(smallvec![Value::Bool(t(a, 0)?.dtype().is_float())]),
        ("unbind", _) => |a| list(ops::unbind(t(a, 0)?, int(a, 1)?)?),
        ("meshgrid", _) => |a| {
            list(ops::meshgrid(
                &tensors(a, 0)?,
                string(a, 1)?.unwrap_or("ij"),
            )?)
        },
        ("sort", _) => |a| pair(ops::sort(t(a, 0)?, int(a, 1)?, boolean(a, 2)?)?),
        ("topk", _) => |a| pair(ops::topk(t(a, 0)?, int(a, 1)?, int(a, 2)?, boolean(a, 3)?)?),
        ("nonzero", _) => |a| one(ops::nonzero(t(a, 0)?)?),
        ("where", "") => |a| list(ops::where_indices(t(a, 0)?)?),
        ("tril", _) => |a| one(ops::tri(t(a, 0)?, int(a, 1)?, false)?),
        ("triu", _) => |a| one(ops::tri(t(a, 0)?, int(a, 1)?, true)?),
        ("einsum", _) => |a| one(ops::einsum(string(a, 0)?.unwrap_or(""), &tensors(a, 1)?)?),
        ("pad", _) => |a| {
            let value = match arg(a, 3)? {
                Value::None => None,
                _ => Some(float(a, 3)?),
            };
            one(ops::pad(
                t(a, 0)?,
                &ints(a, 1)?,
                string(a, 2)?.unwrap_or("constant"),
                value,
            )?)
        },
        ("dropout", _) => |a| one(ops::dropout(t(a, 0)?, float(a, 1)?, boolean(a, 2)?)?),
        ("binary_cross_entropy_with_logits", _) => |a| {
            one(ops::binary_cross_entropy_with_logits(
                t(a, 0)?,
                t(a, 1)?,
                opt_t(a, 2)?,
                opt_t(a, 4)?,
                string(a, 3)?.unwrap_or("mean"),
            )?)
        },
        ("float", _) => |a| one(t(a, 0)?.to_dtype(DType::Float32)?),
        ("double", _) => |a| one(t(a, 0)?.to_dtype(DType::Float64)?),
        ("long", _) => |a| one(t(a, 0)?.to_dtype(DType::Int64)?),
        ("int", _) => |a| one(t(a, 0)?.to_dtype(DType::Int32)?),
        ("bool", _) => |a| one(t(a, 0)?.to_dtype(DType::Bool)?),
        ("Float", _) => |a| Ok(smallvec![Value::Float(item_of(t(a, 0)?)?.to_f64())]),
        ("Int", _) => |a| {
            let s = item_of(t(a, 0)?)?;
            if let Scalar::Float(f) = s
                && !f.is_finite()
            {
                return Err(RuntimeError::Value(format!(
                    "cannot convert float {} to integer",
                    crate::print::python_float_repr(f)
                )));
            }
            Ok(smallvec![Value::Int(s.to_i64())])
        },
        ("Bool", _) => |a| Ok(smallvec![Value::Bool(truth_of(t(a, 0)?)?)]),
        // indexing
        ("index", _) => |a| one(ops::index(t(a, 0)?, indices(a, 1)?)?),
        ("index_select", _) => |a| one(ops::index_select(t(a, 0)?, int(a, 1)?, t(a, 2)?)?),
        ("gather", _) => |a| one(ops::gather(t(a, 0)?, int(a, 1)?, t(a, 2)?)?),
        ("masked_fill", "Scalar") => {
            |a| one(ops::masked_fill_scalar(t(a, 0)?, t(a, 1)?, sc(a, 2)?)?)
        }
        ("masked_fill", _) => |a| one(ops::masked_fill(t(a, 0)?, t(a, 1)?, t(a, 2)?)?),
        ("masked_select", _) => |a| one(ops::masked_select(t(a, 0)?, t(a, 1)?)?),
        // in place
        ("index_put_", "") => |a| one(ops::index_put_(t(a, 0)?, indices(a, 1)?, t(a, 2)?)?),
        ("index_put_", _) => |a| one(ops::index_put_scalar_(t(a, 0)?, indices(a, 1)?, sc(a, 2)?)?),
        ("masked_fill_", "Scalar") => |a| {
            let x = t(a, 0)?;
            one(ops::masked_fill_(
                x,
                t(a, 1)?,
                &Tensor::scalar_typed(sc(a, 2)?, x.dtype()),
            )?)
        },
        ("masked_fill_", _) => |a| one(ops::masked_fill_(t(a, 0)?, t(a, 1)?, t(a, 2)?)?),
        ("copy_", _) => |a| {
            let x = t(a, 0)?;
            let src = t(a, 1)?;
            x.assert_no_partial_overlap(src)?;
            x.copy_(src)?;
            one(x.clone())
        },
        ("fill_", "Scalar") => |a| {
            let x = t(a, 0)?;
            x.fill_(sc(a, 1)?)?;
            one(x.clone())
        },
        ("fill_", _) => |a| {
            let x = t(a, 0)?;
            let v = t(a, 1)?;
            if v.dim() != 0 {
                return Err(RuntimeError::Shape(format!(
                    "fill_ only supports 0-dimension value tensor but got tensor with {} dimensions.",
                    v.dim()
                )));
            }
            x.fill_(v.item()?)?;
            one(x.clone())
        },
        ("zero_", _) => |a| {
            let x = t(a, 0)?;
            x.fill_(Scalar::Int(0))?;
            one(x.clone())
        },
        ("add_", _) => |a| {
            let x = t(a, 0)?;
            let other = input(a, 1)?;
            check_inplace(x, &other)?;
            let r = ops::add_alpha(Input::T(x), other, sc(a, 2)?, false)?;
            one(write_inplace(x, &r)?)
        },
        ("sub_", _) => |a| {
            let x = t(a, 0)?;
            let other = input(a, 1)?;
            check_inplace(x, &other)?;
            let r = ops::add_alpha(Input::T(x), other, sc(a, 2)?, true)?;
            one(write_inplace(x, &r)?)
        },
        ("mul_", _) => |a| inplace_bin(Mul, a),
        ("div_", _) => |a| inplace_bin(Div, a),
        ("floor_divide_", _) => |a| inplace_bin(DivFloor, a),
        ("remainder_", _) => |a| inplace_bin(Remainder, a),
        ("pow_", _) => |a| inplace_bin(Pow, a),
        ("bitwise_and_", _) => |a| inplace_bin(BitAnd, a),
        ("bitwise_or_", _) => |a| inplace_bin(BitOr, a),
        ("bitwise_xor_", _) => |a| inplace_bin(BitXor, a),
        ("bitwise_left_shift_", _) => |a| inplace_bin(Shl, a),
        ("bitwise_right_shift_", _) => |a| inplace_bin(Shr, a),
        ("clamp_", "Tensor") => |a| {
            let (lo, hi) = (opt_t(a, 1)?, opt_t(a, 2)?);
            let r = ops::clamp(t(a, 0)?, lo.map(Input::T), hi.map(Input::T))?;
            Ok(smallvec![Value::Tensor(write_inplace(t(a, 0)?, &r)?)])
        },
        ("clamp_", _) => |a| {
            let x = t(a, 0)?;
            let (lo, hi) = (opt_sc(a, 1)?, opt_sc(a, 2)?);
            let r = ops::clamp(x, lo.map(Input::S), hi.map(Input::S))?;
            one(write_inplace(x, &r)?)
        },
        ("relu_", _) => |a| {
            let x = t(a, 0)?;
            one(write_inplace(x, &ops::relu(x)?)?)
        },
        ("neg_", _) => |a| {
            let x = t(a, 0)?;
            one(write_inplace(x, &ops::neg(x)?)?)
        },
        _ => return None,
    };
    Some(k)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    #[test]
    fn every_schema_has_a_kernel() {
        for (id, s) in schema::all() {
            assert!(has_kernel(id), "no kernel for {}", s.signature);
        }
    }

    /// `call_owned` writes over a uniquely owned first argument (same buffer back), leaves
    /// shared, external-free-but-aliased, broadcasting and dtype-changing cases to fresh
    /// results, and computes what `call` computes, bit for bit.
    #[test]
    fn call_owned_reuses_dead_inputs_and_matches_call() {
        fn ptr(t: &Tensor) -> usize {
            t.with_view_as::<f32, usize>(|v| v.as_ptr() as usize)
        }
        let data: Vec<f32> = (0..5000).map(|i| i as f32 * 0.01 - 20.0).collect();
        let other: Vec<f32> = (0..5000).map(|i| i as f32 * 0.003 + 0.5).collect();
        let fresh = || Tensor::from_vec(data.clone(), &[50, 100]).unwrap();
        let y = Value::Tensor(Tensor::from_vec(other, &[50, 100]).unwrap());
        let cases: Vec<(&str, Vec<Value>)> = vec![
            ("exp", vec![]),
            ("tanh", vec![]),
            ("sin", vec![]),
            ("sigmoid", vec![]),
            ("abs", vec![]),
            ("neg", vec![]),
            ("add", vec![y.clone()]),
            ("sub", vec![Value::Float(0.25)]),
            ("mul", vec![y.clone()]),
            ("div", vec![Value::Int(3)]),
        ];
        for (name, rest) in cases {
            let mut positional = vec![Value::Tensor(fresh())];
            positional.extend(rest.iter().cloned());
            let (id, args) = resolve(name, positional, vec![]).unwrap();
            let want = call(id, &args).unwrap()[0]
                .as_tensor()
                .unwrap()
                .to_vec::<f32>();
            // Unique: the same buffer comes back.
            let x = fresh();
            let before = ptr(&x);
            let mut owned = args.clone();
            owned[0] = Value::Tensor(x);
            let got = call_owned(id, owned).unwrap();
            let got = got[0].as_tensor().unwrap();
            assert_eq!(ptr(got), before, "{name} in place");
            let bits = |v: Vec<f32>| v.into_iter().map(f32::to_bits).collect::<Vec<_>>();
            assert_eq!(bits(got.to_vec::<f32>()), bits(want.clone()), "{name}");
            // Shared: the other view is left alone.
            let x = fresh();
            let keep = x.clone();
            let mut owned = args.clone();
            owned[0] = Value::Tensor(x);
            let got = call_owned(id, owned).unwrap();
            assert_ne!(
                ptr(got[0].as_tensor().unwrap()),
                ptr(&keep),
                "{name} shared"
            );
            assert_eq!(keep.to_vec::<f32>(), data, "{name} shared input intact");
        }
        // A one-element right operand of higher rank broadcasts: a fresh [1, 50, 100] result.
        let one_elem = Value::Tensor(Tensor::from_vec(vec![2.0f32], &[1, 1, 1]).unwrap());
        let (id, args) = resolve("mul", vec![Value::Tensor(fresh()), one_elem], vec![]).unwrap();
        let got = call_owned(id, args).unwrap();
        assert_eq!(got[0].as_tensor().unwrap().shape(), &[1, 50, 100]);
        // An int tensor divided: a float result, not written over the int buffer.
        let i = Value::Tensor(Tensor::from_vec(vec![1i64, 2, 3], &[3]).unwrap());
        let (id, args) = resolve("div", vec![i, Value::Int(2)], vec![]).unwrap();
        let got = call_owned(id, args).unwrap();
        assert_eq!(
            got[0].as_tensor().unwrap().to_vec::<f32>(),
            vec![0.5, 1.0, 1.5]
        );
        // abs/neg of a dead int tensor keep the int dtype (two's complement wrapping).
        for (name, want) in [
            ("abs", vec![i64::MIN, 7, 0, 5]),
            ("neg", vec![i64::MIN, 7, 0, -5]),
        ] {
            let i = Value::Tensor(Tensor::from_vec(vec![i64::MIN, -7, 0, 5], &[4]).unwrap());
            let (id, args) = resolve(name, vec![i], vec![]).unwrap();
            let got = call_owned(id, args).unwrap();
            let got = got[0].as_tensor().unwrap();
            assert_eq!(got.dtype(), DType::Int64, "{name}");
            assert_eq!(got.to_vec::<i64>(), want, "{name}");
        }
        // abs/neg of floats: signed zeros, infinities and NaN, fresh and in place.
        let special = [
            -0.0f64,
            0.0,
            f64::NEG_INFINITY,
            f64::INFINITY,
            f64::NAN,
            -1e-310,
        ];
        for name in ["abs", "neg"] {
            let t = || Value::Tensor(Tensor::from_vec(special.to_vec(), &[6]).unwrap());
            let (id, args) = resolve(name, vec![t()], vec![]).unwrap();
            let eager = call(id, &args).unwrap()[0]
                .as_tensor()
                .unwrap()
                .to_vec::<f64>();
            let (id, args) = resolve(name, vec![t()], vec![]).unwrap();
            let owned = call_owned(id, args).unwrap()[0]
                .as_tensor()
                .unwrap()
                .to_vec::<f64>();
            let want: Vec<u64> = special
                .iter()
                .map(|&x| if name == "abs" { x.abs() } else { -x }.to_bits())
                .collect();
            let bits = |v: Vec<f64>| v.into_iter().map(f64::to_bits).collect::<Vec<_>>();
            assert_eq!(bits(eager), want, "{name}");
            assert_eq!(bits(owned), want, "{name} owned");
        }
        // add with alpha != 1 through the general kernel.
        let (id, args) = resolve(
            "add",
            vec![
                Value::Tensor(Tensor::from_slice(&[1.0f32, 2.0])),
                Value::Float(1.0),
            ],
            vec![("alpha".into(), Value::Int(3))],
        )
        .unwrap();
        let got = call_owned(id, args).unwrap();
        assert_eq!(got[0].as_tensor().unwrap().to_vec::<f32>(), vec![4.0, 5.0]);
    }

    #[test]
    fn call_by_name_and_inplace_aliasing() {
        let x = Value::Tensor(Tensor::from_slice(&[1.0f32, 2.0, 3.0]));
        let r = call_by_name("add", vec![x.clone(), Value::Int(1)], vec![]).unwrap();
        assert_eq!(
            r[0].as_tensor().unwrap().to_vec::<f32>(),
            vec![2.0, 3.0, 4.0]
        );
        let xt = x.as_tensor().unwrap().clone();
        let view = xt.slice(0, Some(1), None, 1).unwrap();
        call_by_name(
            "add_",
            vec![Value::Tensor(view), Value::Float(10.0)],
            vec![],
        )
        .unwrap();
        assert_eq!(xt.to_vec::<f32>(), vec![1.0, 12.0, 13.0]);
        // float32 += float64 keeps float32
        let d = Value::Tensor(Tensor::from_slice(&[0.5f64, 0.5, 0.5]));
        let r = call_by_name("add_", vec![x.clone(), d], vec![]).unwrap();
        assert_eq!(r[0].as_tensor().unwrap().dtype(), DType::Float32);
        // int += float is an error
        let i = Value::Tensor(Tensor::from_slice(&[1i64]));
        let e = call_by_name("add_", vec![i, Value::Float(1.5)], vec![]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "result type Float can't be cast to the desired output type Long"
        );
        let r = call_by_name("max", vec![x.clone(), Value::Int(0)], vec![]).unwrap();
        assert_eq!(r.len(), 2);
    }

    /// `bool(t)`, `int(t)`/`float(t)` and `t.item()` refuse a tensor without exactly one element
    /// with the exception classes and words of PyTorch (checked against torch 2.x eagerly).
    #[test]
    fn scalar_conversions_of_multi_element_tensors() {
        let two = Value::Tensor(Tensor::from_slice(&[1.0f32, 2.0]));
        let empty = Value::Tensor(Tensor::from_slice::<f32>(&[]));
        let err = |name: &str, v: &Value| {
            let e = call_by_name(name, vec![v.clone()], vec![]).unwrap_err();
            (e.kind(), e.to_string())
        };
        assert_eq!(
            err("Bool", &two),
            (
                ErrorKind::RuntimeError,
                "Boolean value of Tensor with more than one value is ambiguous".into()
            )
        );
        assert_eq!(
            err("Bool", &empty),
            (
                ErrorKind::RuntimeError,
                "Boolean value of Tensor with no values is ambiguous".into()
            )
        );
        let py_scalar = (
            ErrorKind::ValueError,
            "only one element tensors can be converted to Python scalars".to_string(),
        );
        assert_eq!(err("Int", &two), py_scalar);
        assert_eq!(err("Float", &two), py_scalar);
        assert_eq!(
            err("item", &two),
            (
                ErrorKind::RuntimeError,
                "a Tensor with 2 elements cannot be converted to Scalar".into()
            )
        );
        let one = Value::Tensor(Tensor::from_slice(&[0.0f32]));
        let r = call_by_name("Bool", vec![one], vec![]).unwrap();
        assert!(matches!(r[0], Value::Bool(false)));
    }
}
