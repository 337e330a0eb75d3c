//! The interpreter's dynamically typed values, and their conversion to and from the runtime's
//! dispatch values.
//!
//! Lists are shared and mutable (`Arc<Mutex<Vec<Value>>>`): two names bound to one list see each
//! other's `append`s and index assignments, exactly as in Python. Tuples are immutable and shared.
//! `Optional[T]` has no wrapper: a present optional is the value itself, an empty one is
//! [`Value::None`] (the type system never nests optionals, so nothing is lost).
//!
//! Values are `Send + Sync` so a later backend may hand them across threads.

use parking_lot::Mutex;
use pyjit_ir::Type;
use pyjit_runtime::value::Value as RtValue;
use pyjit_runtime::{DType, Tensor, TensorIndex};
use std::fmt;
use std::sync::Arc;

/// A shared, mutable Python list.
#[derive(Clone, Default)]
pub struct List(Arc<Mutex<Vec<Value>>>);

impl List {
    pub fn new(items: Vec<Value>) -> List {
        List(Arc::new(Mutex::new(items)))
    }

    /// A copy of the current elements. Readers take a snapshot rather than holding the lock, so
    /// that code touching two lists (or one list twice, as in `a == a`) can never deadlock.
    pub fn snapshot(&self) -> Vec<Value> {
        self.0.lock().clone()
    }

    pub fn len(&self) -> usize {
        self.0.lock().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn get(&self, i: usize) -> Option<Value> {
        self.0.lock().get(i).cloned()
    }

    /// Sets element `i`; false when out of range.
    pub fn set(&self, i: usize, v: Value) -> bool {
        match self.0.lock().get_mut(i) {
            Some(slot) => {
                *slot = v;
                true
            }
            None => false,
        }
    }

    pub fn push(&self, v: Value) {
        self.0.lock().push(v);
    }

    /// Whether both handles name the same list (Python's `is`).
    pub fn ptr_eq(&self, other: &List) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl fmt::Debug for List {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.snapshot()).finish()
    }
}

/// A dictionary key: TorchScript's `str` and `int` keys.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum DictKey {
    Int(i64),
    Str(Arc<str>),
}

impl DictKey {
    /// The key of a value (`None` for a value that cannot be a key).
    pub fn of(v: &Value) -> Option<DictKey> {
        match v {
            Value::Int(i) => Some(DictKey::Int(*i)),
            Value::Str(s) => Some(DictKey::Str(s.clone())),
            _ => None,
        }
    }

    pub fn value(&self) -> Value {
        match self {
            DictKey::Int(i) => Value::Int(*i),
            DictKey::Str(s) => Value::Str(s.clone()),
        }
    }
}

#[derive(Default)]
struct DictData {
    /// Entries in insertion order.
    entries: Vec<(DictKey, Value)>,
    /// Where each key's entry is.
    index: std::collections::HashMap<DictKey, usize>,
}

/// A shared, mutable, insertion-ordered Python dict (no deletion: the language has no `del`
/// or `pop` on dicts).
#[derive(Clone, Default)]
pub struct Dict(Arc<Mutex<DictData>>);

impl Dict {
    pub fn new() -> Dict {
        Dict::default()
    }

    pub fn len(&self) -> usize {
        self.0.lock().entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn get(&self, k: &DictKey) -> Option<Value> {
        let d = self.0.lock();
        d.index.get(k).map(|&i| d.entries[i].1.clone())
    }

    pub fn contains(&self, k: &DictKey) -> bool {
        self.0.lock().index.contains_key(k)
    }

    /// `d[k] = v`: an existing key keeps its position, a new one goes last.
    pub fn set(&self, k: DictKey, v: Value) {
        let mut d = self.0.lock();
        match d.index.get(&k) {
            Some(&i) => d.entries[i].1 = v,
            None => {
                let i = d.entries.len();
                d.index.insert(k.clone(), i);
                d.entries.push((k, v));
            }
        }
    }

    /// A copy of the entries in insertion order (see [`List::snapshot`]).
    pub fn snapshot(&self) -> Vec<(DictKey, Value)> {
        self.0.lock().entries.clone()
    }

    /// Whether both handles name the same dict (Python's `is`).
    pub fn ptr_eq(&self, other: &Dict) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl fmt::Debug for Dict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.snapshot()).finish()
    }
}

/// A value of the interpreted program.
#[derive(Clone, Debug)]
pub enum Value {
    None,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(Arc<str>),
    DType(DType),
    Tensor(Tensor),
    Tuple(Arc<[Value]>),
    List(List),
    Dict(Dict),
    /// One component of a tensor subscript (`index.*` ops).
    Index(TensorIndex),
}

impl Value {
    pub fn tuple(items: Vec<Value>) -> Value {
        Value::Tuple(items.into())
    }

    pub fn list(items: Vec<Value>) -> Value {
        Value::List(List::new(items))
    }

    pub fn str(s: impl AsRef<str>) -> Value {
        Value::Str(Arc::from(s.as_ref()))
    }

    /// A short name of the value's kind, as Python names types (`int`, `Tensor`, `list` …).
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::None => "NoneType",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int",
            Value::Float(_) => "float",
            Value::Str(_) => "str",
            Value::DType(_) => "dtype",
            Value::Tensor(_) => "Tensor",
            Value::Tuple(_) => "tuple",
            Value::List(_) => "list",
            Value::Dict(_) => "dict",
            Value::Index(_) => "Index",
        }
    }

    pub fn as_int(&self) -> Option<i64> {
        match self {
            Value::Int(i) => Some(*i),
            _ => None,
        }
    }

    pub fn as_float(&self) -> Option<f64> {
        match self {
            Value::Float(f) => Some(*f),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub fn as_tensor(&self) -> Option<&Tensor> {
        match self {
            Value::Tensor(t) => Some(t),
            _ => None,
        }
    }

    pub fn is_none(&self) -> bool {
        matches!(self, Value::None)
    }

    /// Whether the value fits a static type (deeply for containers; tensor refinements are
    /// checked too). Used to check arguments at the API boundary.
    pub fn has_type(&self, ty: &Type) -> bool {
        match (self, ty) {
            (Value::None, Type::None | Type::Optional(_)) => true,
            (v, Type::Optional(inner)) => v.has_type(inner),
            (Value::Bool(_), Type::Bool)
            | (Value::Int(_), Type::Int)
            | (Value::Float(_), Type::Float)
            | (Value::Str(_), Type::Str)
            | (Value::DType(_), Type::DType)
            | (Value::Index(_), Type::Index) => true,
            (Value::Tensor(t), Type::Tensor(tt)) => {
                tt.dtype.is_none_or(|d| d == t.dtype())
                    && tt.rank.is_none_or(|r| r as usize == t.dim())
                    && tt.dims.as_ref().is_none_or(|dims| {
                        dims.iter()
                            .zip(t.shape())
                            .all(|(d, &s)| d.is_none_or(|d| d as usize == s))
                    })
            }
            (Value::Tuple(items), Type::Tuple(tys)) => {
                items.len() == tys.len() && items.iter().zip(tys).all(|(v, t)| v.has_type(t))
            }
            (Value::List(l), Type::List(elem)) => l.snapshot().iter().all(|v| v.has_type(elem)),
            (Value::Dict(d), Type::Dict(kt, vt)) => d
                .snapshot()
                .iter()
                .all(|(k, v)| k.value().has_type(kt) && v.has_type(vt)),
            _ => false,
        }
    }
}

pyjit_runtime::value_from!(Value {
    Tensor => Value::Tensor,
    i64 => Value::Int,
    f64 => Value::Float,
    bool => Value::Bool,
});

/// Converts an interpreter value to the runtime's dispatch value for a parameter of schema type
/// `ty`. Lists and tuples become the runtime's typed lists when the parameter asks for one.
pub fn to_runtime(v: &Value, ty: &pyjit_runtime::schema::ArgType) -> RtValue {
    use pyjit_runtime::schema::ArgType as A;
    match (ty, v) {
        (A::Optional(_), Value::None) => RtValue::None,
        (A::Optional(inner), v) => to_runtime(v, inner),
        (A::IntList(_), Value::List(_) | Value::Tuple(_)) => {
            typed_list(v, Value::as_int, RtValue::IntList)
        }
        (A::FloatList, Value::List(_) | Value::Tuple(_)) => typed_list(
            v,
            |x| match x {
                Value::Float(f) => Some(*f),
                Value::Int(i) => Some(*i as f64),
                _ => None,
            },
            RtValue::FloatList,
        ),
        (A::Indices, Value::List(_) | Value::Tuple(_)) => typed_list(
            v,
            |x| match x {
                Value::Index(i) => Some(i.clone()),
                _ => None,
            },
            RtValue::Indices,
        ),
        (A::TensorList, Value::List(_) | Value::Tuple(_)) => {
            typed_list(v, |x| x.as_tensor().cloned(), RtValue::TensorList)
        }
        _ => generic_to_runtime(v),
    }
}

/// The runtime's typed list `list` of the elements of list or tuple `v` when `elem` converts
/// every one of them; otherwise the untyped runtime value.
fn typed_list<T>(
    v: &Value,
    elem: impl Fn(&Value) -> Option<T>,
    list: fn(Vec<T>) -> RtValue,
) -> RtValue {
    match elements(v).iter().map(elem).collect::<Option<Vec<T>>>() {
        Some(items) => list(items),
        None => generic_to_runtime(v),
    }
}

fn elements(v: &Value) -> Vec<Value> {
    match v {
        Value::List(l) => l.snapshot(),
        Value::Tuple(t) => t.to_vec(),
        _ => Vec::new(),
    }
}

/// The runtime value of an interpreter value, with containers as untyped nested lists.
pub fn generic_to_runtime(v: &Value) -> RtValue {
    match v {
        Value::None => RtValue::None,
        Value::Bool(b) => RtValue::Bool(*b),
        Value::Int(i) => RtValue::Int(*i),
        Value::Float(f) => RtValue::Float(*f),
        Value::Str(s) => RtValue::Str(s.to_string()),
        Value::DType(d) => RtValue::DType(*d),
        Value::Tensor(t) => RtValue::Tensor(t.clone()),
        Value::Tuple(_) | Value::List(_) => {
            RtValue::List(elements(v).iter().map(generic_to_runtime).collect())
        }
        // No op takes a dict; its keys are what Python iterates.
        Value::Dict(d) => RtValue::List(
            d.snapshot()
                .iter()
                .map(|(k, _)| generic_to_runtime(&k.value()))
                .collect(),
        ),
        Value::Index(i) => RtValue::Indices(vec![i.clone()]),
    }
}

/// Converts a runtime result to an interpreter value. Runtime lists always become fresh
/// interpreter lists (`x.size()` returns a new list each time, as in PyTorch).
pub fn from_runtime(v: RtValue) -> Value {
    match v {
        RtValue::None => Value::None,
        RtValue::Bool(b) => Value::Bool(b),
        RtValue::Int(i) => Value::Int(i),
        RtValue::Float(f) => Value::Float(f),
        RtValue::Str(s) => Value::str(s),
        RtValue::DType(d) => Value::DType(d),
        RtValue::IntList(v) => Value::list(v.into_iter().map(Value::Int).collect()),
        RtValue::FloatList(v) => Value::list(v.into_iter().map(Value::Float).collect()),
        RtValue::BoolList(v) => Value::list(v.into_iter().map(Value::Bool).collect()),
        RtValue::List(v) => Value::list(v.into_iter().map(from_runtime).collect()),
        RtValue::Tensor(t) => Value::Tensor(t),
        RtValue::TensorList(v) => Value::list(v.into_iter().map(Value::Tensor).collect()),
        // Subscript components never come back from an op; keep them rather than lose them.
        RtValue::Indices(v) => Value::list(v.into_iter().map(Value::Index).collect()),
    }
}
