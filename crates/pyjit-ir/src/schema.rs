//! The IR's view of the runtime's op-schema table: names, and how schema types map to IR types.
//!
//! The table itself lives in `pyjit_runtime::schema` and is never duplicated here. A tensor op's
//! operands are *all* the schema's parameters in schema order (keyword-only ones included), with
//! defaults already filled in by the producer (the runtime's `bind`/`resolve` do exactly that).

pub use pyjit_runtime::DType;
pub use pyjit_runtime::facts::{MayRaise, OpFacts, facts, number_operand_ok};
pub use pyjit_runtime::schema::{
    ArgType, DefaultValue, FAST_MATH_FORMS, OpId, OpSchema, TensorInfo, TypeInfo, lookup,
    overloads, schema,
};

use crate::{TensorType, Type};

/// `max.dim`: the name the text format writes after `tensor.`.
pub fn op_name(id: OpId) -> String {
    schema(id).qualified_name()
}

pub(crate) fn lookup_op(name: &str) -> Option<OpId> {
    lookup(name)
}

/// In-place ops write their first operand (the op's record, `pyjit_runtime::facts`).
pub fn is_inplace(id: OpId) -> bool {
    facts(id).effects.writes_first
}

/// Whether a result of the op is a mutable object (tensor or list) rather than a scalar (the
/// op's record, `pyjit_runtime::facts`).
pub(crate) fn returns_mutable(id: OpId) -> bool {
    facts(id).effects.result_mutable
}

/// The IR type of a schema result type. `Scalar` (the result of `item`) has none: a program
/// must say which scalar it wants (`tensor.Int.Tensor`, `tensor.Float.Tensor`,
/// `tensor.Bool.Tensor`).
pub fn ir_type(ty: &ArgType) -> Option<Type> {
    Some(match ty {
        ArgType::Tensor => Type::tensor(),
        ArgType::Int => Type::Int,
        ArgType::Float => Type::Float,
        ArgType::Bool => Type::Bool,
        ArgType::Str => Type::Str,
        ArgType::ScalarType => Type::DType,
        ArgType::IntList(_) => Type::list(Type::Int),
        ArgType::FloatList => Type::list(Type::Float),
        ArgType::TensorList => Type::list(Type::tensor()),
        ArgType::Indices => Type::list(Type::Index),
        ArgType::Optional(inner) => Type::optional(ir_type(inner)?),
        ArgType::Scalar | ArgType::Any => return None,
    })
}

/// Result types of op `id` (generic tensors; `None` for results without an IR type).
pub(crate) fn return_types(id: OpId) -> Vec<Type> {
    schema(id)
        .returns
        .iter()
        .map(|r| ir_type(&r.ty).unwrap_or(Type::None))
        .collect()
}

/// Whether an operand of IR type `got` may be passed for a parameter of schema type `param`.
/// Mirrors the runtime's `accepts` (so everything the verifier accepts, the runtime binds):
/// `Scalar` takes int/float/bool, `float` also takes int, `int[]` also takes one int, list
/// parameters take tuples of the right elements, an optional parameter takes `None`, its inner
/// type, or an `Optional` of it, and `Any` takes everything.
pub fn accepts(param: &ArgType, got: &Type) -> bool {
    let scalar = |t: &Type| t.is_scalar();
    let all = |ts: &[Type], f: &dyn Fn(&Type) -> bool| ts.iter().all(f);
    match (param, got) {
        (ArgType::Any, _) => true,
        (ArgType::Optional(_), Type::None) => true,
        (ArgType::Optional(p), Type::Optional(inner)) => accepts(p, inner),
        (ArgType::Optional(p), t) => accepts(p, t),
        (ArgType::Tensor, Type::Tensor(_)) => true,
        (ArgType::Scalar, t) => scalar(t),
        (ArgType::Int, Type::Int) => true,
        (ArgType::Float, Type::Int | Type::Float) => true,
        (ArgType::Bool, Type::Bool) => true,
        (ArgType::Str, Type::Str) => true,
        (ArgType::ScalarType, Type::DType) => true,
        (ArgType::IntList(_), Type::Int) => true,
        (ArgType::IntList(_), Type::List(e)) => **e == Type::Int,
        (ArgType::IntList(_), Type::Tuple(ts)) => all(ts, &|t| *t == Type::Int),
        (ArgType::FloatList, Type::List(e)) => matches!(**e, Type::Int | Type::Float),
        (ArgType::FloatList, Type::Tuple(ts)) => all(ts, &|t| matches!(t, Type::Int | Type::Float)),
        (ArgType::TensorList, Type::List(e)) => e.is_tensor(),
        (ArgType::TensorList, Type::Tuple(ts)) => all(ts, &Type::is_tensor),
        (ArgType::Indices, Type::List(e)) => **e == Type::Index,
        _ => false,
    }
}

/// The IR type of what the runtime's `infer` (or a call signature) knows about a value: the
/// specializer's bridge from the runtime's static facts to refined IR types.
pub fn type_from_info(info: &TypeInfo) -> Type {
    match info {
        TypeInfo::Tensor(t) => Type::Tensor(tensor_type_from_info(*t)),
        TypeInfo::Int => Type::Int,
        TypeInfo::Float => Type::Float,
        TypeInfo::Bool => Type::Bool,
        TypeInfo::IntList => Type::list(Type::Int),
        TypeInfo::TensorList(t, _) => Type::list(Type::Tensor(tensor_type_from_info(*t))),
    }
}

/// A tensor type with the dtype and rank of `info` (dims unknown).
pub(crate) fn tensor_type_from_info(info: TensorInfo) -> TensorType {
    TensorType::ranked(Some(info.dtype), info.rank as u32)
}

/// The runtime's view of a refined tensor type, when dtype and rank are both known.
pub fn tensor_info(t: &TensorType) -> Option<TensorInfo> {
    Some(TensorInfo {
        dtype: t.dtype?,
        rank: t.rank? as usize,
    })
}
