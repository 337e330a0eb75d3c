//! Python scalars and the dynamically typed values the dispatcher takes and returns.

use std::fmt;

use crate::dtype::{DEFAULT_FLOAT, DType};
use crate::tensor::Tensor;

/// A Python scalar (`bool`, `int`, `float`). In type promotion it is a *weak* operand (PyTorch's
/// "wrapped number"): `float32 tensor * 2.0` stays float32, `int64 tensor * 2.5` becomes the
/// default float dtype (float32), `int32 tensor + 1` stays int32.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    Bool(bool),
    Int(i64),
    Float(f64),
}

impl Scalar {
    /// The dtype a tensor made from this scalar gets (`torch.tensor(2.5)` is float32).
    pub fn default_dtype(self) -> DType {
        match self {
            Scalar::Bool(_) => DType::Bool,
            Scalar::Int(_) => DType::Int64,
            Scalar::Float(_) => DEFAULT_FLOAT,
        }
    }

    pub fn to_f64(self) -> f64 {
        match self {
            Scalar::Bool(b) => b as u8 as f64,
            Scalar::Int(i) => i as f64,
            Scalar::Float(f) => f,
        }
    }

    /// Conversion to int as Python's `int()` does for finite values (truncation); NaN and
    /// infinities saturate instead of raising (callers that must raise check first).
    pub fn to_i64(self) -> i64 {
        match self {
            Scalar::Bool(b) => b as i64,
            Scalar::Int(i) => i,
            Scalar::Float(f) => f as i64,
        }
    }

    pub fn to_bool(self) -> bool {
        match self {
            Scalar::Bool(b) => b,
            Scalar::Int(i) => i != 0,
            Scalar::Float(f) => f != 0.0,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, Scalar::Float(_))
    }
}

impl fmt::Display for Scalar {
    /// Python's `str()` of the scalar: `True`, `3`, `2.0`, `0.1`, `1e-05`, `inf`, `nan`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scalar::Bool(true) => f.write_str("True"),
            Scalar::Bool(false) => f.write_str("False"),
            Scalar::Int(i) => write!(f, "{i}"),
            Scalar::Float(x) => f.write_str(&crate::print::python_float_repr(*x)),
        }
    }
}

/// One component of a subscript `x[...]`.
#[derive(Clone, Debug)]
pub enum TensorIndex {
    /// `x[i]` (negative counts from the end); removes the dimension.
    Int(i64),
    /// `x[start:stop:step]`; `step` must be positive (PyTorch rejects negative steps).
    Slice {
        start: Option<i64>,
        stop: Option<i64>,
        step: i64,
    },
    /// `x[None]`: inserts a dimension of size 1.
    None,
    /// `x[...]`: as many full slices as needed.
    Ellipsis,
    /// An index tensor: a bool mask (selects, flattening the masked dims) or an integer tensor
    /// (advanced indexing along one dimension).
    Tensor(Tensor),
}

impl TensorIndex {
    /// The full slice `:`.
    pub fn full() -> TensorIndex {
        TensorIndex::Slice {
            start: None,
            stop: None,
            step: 1,
        }
    }
}

/// A dynamically typed argument or result of an op call ([`crate::dispatch::call`]).
#[derive(Clone, Debug)]
pub enum Value {
    None,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    DType(DType),
    IntList(Vec<i64>),
    FloatList(Vec<f64>),
    BoolList(Vec<bool>),
    /// A (possibly nested, heterogeneous) list or tuple literal, e.g. the data of `torch.tensor`.
    List(Vec<Value>),
    Tensor(Tensor),
    TensorList(Vec<Tensor>),
    /// The components of a subscript (`index`/`index_put_` ops).
    Indices(Vec<TensorIndex>),
}

impl Value {
    pub fn scalar(s: Scalar) -> Value {
        match s {
            Scalar::Bool(b) => Value::Bool(b),
            Scalar::Int(i) => Value::Int(i),
            Scalar::Float(f) => Value::Float(f),
        }
    }

    /// The Python scalar, if this is a `bool`, `int` or `float`.
    pub fn as_scalar(&self) -> Option<Scalar> {
        match self {
            Value::Bool(b) => Some(Scalar::Bool(*b)),
            Value::Int(i) => Some(Scalar::Int(*i)),
            Value::Float(f) => Some(Scalar::Float(*f)),
            _ => None,
        }
    }

    pub fn as_tensor(&self) -> Option<&Tensor> {
        match self {
            Value::Tensor(t) => Some(t),
            _ => None,
        }
    }

    pub fn into_tensor(self) -> Option<Tensor> {
        match self {
            Value::Tensor(t) => Some(t),
            _ => None,
        }
    }

    pub fn as_int(&self) -> Option<i64> {
        match self {
            Value::Int(i) => Some(*i),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// A float argument; Python ints are accepted where floats are expected.
    pub fn as_float(&self) -> Option<f64> {
        match self {
            Value::Float(f) => Some(*f),
            Value::Int(i) => Some(*i as f64),
            _ => None,
        }
    }

    /// An `int[]` argument: a list of ints, a single int (for `int[1]`), or a list/tuple of ints.
    pub fn as_int_list(&self) -> Option<Vec<i64>> {
        match self {
            Value::IntList(v) => Some(v.clone()),
            Value::Int(i) => Some(vec![*i]),
            Value::List(items) => items.iter().map(Value::as_int).collect(),
            _ => None,
        }
    }

    pub fn as_dtype(&self) -> Option<DType> {
        match self {
            Value::DType(d) => Some(*d),
            _ => None,
        }
    }

    pub fn is_none(&self) -> bool {
        matches!(self, Value::None)
    }

    /// A short name of the value's kind, as TorchScript names types in messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::None => "NoneType",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int",
            Value::Float(_) => "float",
            Value::Str(_) => "str",
            Value::DType(_) => "ScalarType",
            Value::IntList(_) => "List[int]",
            Value::FloatList(_) => "List[float]",
            Value::BoolList(_) => "List[bool]",
            Value::List(_) => "List",
            Value::Tensor(_) => "Tensor",
            Value::TensorList(_) => "List[Tensor]",
            Value::Indices(_) => "Indices",
        }
    }
}

/// `impl From<T> for $value` for each `T => constructor` pair (a variant, or a function making
/// the value).
#[macro_export]
#[doc(hidden)]
macro_rules! value_from {
    ($value:ty { $($t:ty => $make:path),* $(,)? }) => {
        $(
            impl From<$t> for $value {
                fn from(v: $t) -> $value {
                    $make(v)
                }
            }
        )*
    };
}

value_from!(Value {
    Tensor => Value::Tensor,
    Scalar => Value::scalar,
    i64 => Value::Int,
    f64 => Value::Float,
    bool => Value::Bool,
    DType => Value::DType,
});
