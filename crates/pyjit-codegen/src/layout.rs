//! How IR values are laid out in native code, and conversions between native slots and the
//! interpreter's [`Value`]s (at the entry trampoline and inside host calls).
//!
//! Every IR type flattens to a fixed list of *slots*, each one Cranelift value:
//!
//! | IR type | slots |
//! |---|---|
//! | `int`, `dtype` (its code) | one `i64` |
//! | `float` | one `f64` |
//! | `bool` | one `i8` (0 or 1) |
//! | `None` | none |
//! | `Tensor` | one pointer: a runtime ABI handle (`*mut PjTensor`, reference counted) |
//! | `str`, `List[T]`, `Dict[K, V]`, `Index` | one pointer: an `Arc<Value>` of the interpreter's value type |
//! | `Tuple[T1…Tn]` | the slots of T1, …, Tn |
//! | `Optional[T]` | an `i8` flag (1 = present), then the slots of T (zeros/null when absent) |
//!
//! Tuples never exist at run time, so `tuple.get` is free and a tuple return is several return
//! values. Tensors use the runtime's handles so that the runtime's live-tensor count sees every
//! tensor native code holds; other objects are shared interpreter values, so lists alias exactly
//! as the interpreter's do and every host operation reuses the interpreter's conversions.

use pyjit_ir::Type;
use pyjit_runtime::abi::{self, PjTensor};
use pyjit_value::Value;
use std::sync::Arc;
use std::sync::atomic::{AtomicIsize, Ordering};

/// The kind of one native slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Slot {
    Int,
    Float,
    Bool,
    /// A runtime tensor handle (owned reference, may be null inside an empty optional).
    Tensor,
    /// An `Arc<Value>` pointer (owned reference, may be null inside an empty optional).
    Obj,
}

impl Slot {
    pub(crate) fn is_ref(self) -> bool {
        matches!(self, Slot::Tensor | Slot::Obj)
    }
}

/// Appends the slots of `ty`.
pub(crate) fn push_slots(ty: &Type, out: &mut Vec<Slot>) {
    match ty {
        Type::Int | Type::DType => out.push(Slot::Int),
        Type::Float => out.push(Slot::Float),
        Type::Bool => out.push(Slot::Bool),
        Type::None => {}
        Type::Tensor(_) => out.push(Slot::Tensor),
        Type::Str | Type::List(_) | Type::Dict(..) | Type::Index => out.push(Slot::Obj),
        Type::Tuple(ts) => ts.iter().for_each(|t| push_slots(t, out)),
        Type::Optional(inner) => {
            out.push(Slot::Bool);
            push_slots(inner, out);
        }
    }
}

pub(crate) fn slots_of(ty: &Type) -> Vec<Slot> {
    let mut v = Vec::new();
    push_slots(ty, &mut v);
    v
}

pub(crate) fn has_refs(ty: &Type) -> bool {
    slots_of(ty).iter().any(|s| s.is_ref())
}

static LIVE_OBJECTS: AtomicIsize = AtomicIsize::new(0);

/// How many non-tensor objects (strings, lists, subscript components) native code currently
/// holds references to; with the runtime's `live_tensor_count` it proves native code leaks
/// nothing.
pub fn live_object_count() -> isize {
    LIVE_OBJECTS.load(Ordering::SeqCst)
}

/// A new owned object pointer holding `v`.
pub(crate) fn new_obj(v: Value) -> u64 {
    LIVE_OBJECTS.fetch_add(1, Ordering::SeqCst);
    Arc::into_raw(Arc::new(v)) as u64
}

/// Adds a reference to an object pointer (null is ignored).
pub(crate) extern "C" fn pjn_obj_retain(p: u64) {
    if p != 0 {
        LIVE_OBJECTS.fetch_add(1, Ordering::SeqCst);
        // SAFETY: native code only passes pointers made by `new_obj` that it still owns.
        unsafe { Arc::increment_strong_count(p as *const Value) };
    }
}

/// Drops a reference to an object pointer (null is ignored).
pub(crate) extern "C" fn pjn_obj_release(p: u64) {
    if p != 0 {
        LIVE_OBJECTS.fetch_sub(1, Ordering::SeqCst);
        // SAFETY: native code gives up one reference it owns.
        unsafe { Arc::decrement_strong_count(p as *const Value) };
    }
}

/// Writes the slots of `v` (of type `ty`) to `out`, creating one owned reference per tensor or
/// object slot. Fails (creating nothing) when the value does not have the type.
pub(crate) fn value_to_slots(v: &Value, ty: &Type, out: &mut Vec<u64>) -> Result<(), String> {
    let start = out.len();
    let r = write_slots(v, ty, out);
    if r.is_err() {
        release_raw(&slots_of(ty), &out[start..]);
        out.truncate(start);
    }
    r
}

/// As [`value_to_slots`], consuming the value (a tensor result becomes a handle without a copy).
pub(crate) fn value_into_slots(v: Value, ty: &Type, out: &mut Vec<u64>) -> Result<(), String> {
    match (ty, v) {
        (Type::Tensor(_), Value::Tensor(t)) => {
            out.push(abi::handle_from_tensor(t) as u64);
            Ok(())
        }
        (ty, v) => value_to_slots(&v, ty, out),
    }
}

/// A scalar argument of a call from Rust ([`crate::NativeFunction::call_scalars`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ScalarArg {
    /// A Python `int`.
    Int(i64),
    /// A Python `float`.
    Float(f64),
    /// A Python `bool`.
    Bool(bool),
}

impl ScalarArg {
    /// The scalar `v` holds, if it is one.
    pub fn of(v: &Value) -> Option<ScalarArg> {
        Some(match v {
            Value::Int(i) => ScalarArg::Int(*i),
            Value::Float(f) => ScalarArg::Float(*f),
            Value::Bool(b) => ScalarArg::Bool(*b),
            _ => return None,
        })
    }

    /// The value.
    pub fn to_value(self) -> Value {
        match self {
            ScalarArg::Int(i) => Value::Int(i),
            ScalarArg::Float(f) => Value::Float(f),
            ScalarArg::Bool(b) => Value::Bool(b),
        }
    }

    /// The one slot of this scalar passed where type `ty` is expected (`None`: the type takes
    /// no scalar, or not this one).
    pub(crate) fn slot(self, ty: &Type) -> Option<u64> {
        Some(match (ty, self) {
            (Type::Int, ScalarArg::Int(i)) => i as u64,
            (Type::Int, ScalarArg::Bool(b)) => b as u64,
            (Type::Float, ScalarArg::Float(f)) => f.to_bits(),
            // Python's implicit int → float at a call boundary.
            (Type::Float, ScalarArg::Int(i)) => (i as f64).to_bits(),
            (Type::Bool, ScalarArg::Bool(b)) => b as u64,
            _ => return None,
        })
    }
}

fn write_slots(v: &Value, ty: &Type, out: &mut Vec<u64>) -> Result<(), String> {
    let mismatch = || format!("expected a value of type {ty}, got {}", v.type_name());
    if let Some(slot) = ScalarArg::of(v).and_then(|a| a.slot(ty)) {
        out.push(slot);
        return Ok(());
    }
    match (ty, v) {
        (Type::None, Value::None) => {}
        (Type::DType, Value::DType(d)) => out.push(d.code() as u64),
        (Type::Tensor(_), Value::Tensor(t)) => out.push(abi::handle_from_tensor(t.clone()) as u64),
        (Type::Str, Value::Str(_))
        | (Type::List(_), Value::List(_))
        | (Type::Dict(..), Value::Dict(_))
        | (Type::Index, Value::Index(_)) => out.push(new_obj(v.clone())),
        (Type::Tuple(ts), Value::Tuple(items)) => {
            if ts.len() != items.len() {
                return Err(mismatch());
            }
            for (t, x) in ts.iter().zip(items.iter()) {
                write_slots(x, t, out)?;
            }
        }
        (Type::Optional(inner), Value::None) => {
            out.push(0);
            out.extend(std::iter::repeat_n(0, slots_of(inner).len()));
        }
        (Type::Optional(inner), v) => {
            out.push(1);
            write_slots(v, inner, out)?;
        }
        _ => return Err(mismatch()),
    }
    Ok(())
}

/// The value of an `int`, `float` or `bool` held in its one slot (`None` for other types: they
/// may hold references, see [`slots_to_value`]).
#[inline]
pub(crate) fn scalar_of_slot(ty: &Type, slot: u64) -> Option<Value> {
    Some(match ty {
        Type::Int => Value::Int(slot as i64),
        Type::Float => Value::Float(f64::from_bits(slot)),
        Type::Bool => Value::Bool(slot & 0xff != 0),
        _ => return None,
    })
}

/// Reads a value of type `ty` from `slots` starting at `*pos` (advancing it), without taking
/// the references the slots own.
///
/// # Safety
/// Tensor and object slots must hold live handles (or null inside an empty optional).
pub(crate) unsafe fn slots_to_value(ty: &Type, slots: &[u64], pos: &mut usize) -> Value {
    let mut next = || {
        let v = slots.get(*pos).copied().unwrap_or(0);
        *pos += 1;
        v
    };
    match ty {
        Type::Int | Type::Float | Type::Bool => {
            scalar_of_slot(ty, next()).expect("a scalar type has a scalar slot")
        }
        Type::None => Value::None,
        Type::DType => {
            let code = next() as u32;
            pyjit_runtime::DType::from_code(code).map_or(Value::None, Value::DType)
        }
        Type::Tensor(_) => {
            let h = next() as *const PjTensor;
            // SAFETY: the caller guarantees the handle is live.
            match unsafe { abi::tensor_of_handle(h) } {
                Some(t) => Value::Tensor(t),
                None => Value::None,
            }
        }
        Type::Str | Type::List(_) | Type::Dict(..) | Type::Index => {
            let p = next() as *const Value;
            // SAFETY: the caller guarantees the object pointer is live.
            unsafe { p.as_ref() }.cloned().unwrap_or(Value::None)
        }
        Type::Tuple(ts) => {
            let items = ts
                .iter()
                // SAFETY: forwarded.
                .map(|t| unsafe { slots_to_value(t, slots, pos) })
                .collect();
            Value::tuple(items)
        }
        Type::Optional(inner) => {
            let present = next() & 0xff != 0;
            if present {
                // SAFETY: forwarded.
                unsafe { slots_to_value(inner, slots, pos) }
            } else {
                *pos += slots_of(inner).len();
                Value::None
            }
        }
    }
}

/// Drops the references held by raw slots of the given kinds.
pub(crate) fn release_raw(kinds: &[Slot], slots: &[u64]) {
    for (k, &s) in kinds.iter().zip(slots) {
        match k {
            // SAFETY: the slots own these references.
            Slot::Tensor => unsafe { abi::pj_tensor_release(s as *mut PjTensor) },
            Slot::Obj => pjn_obj_release(s),
            _ => {}
        }
    }
}
