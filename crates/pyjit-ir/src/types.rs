//! The static types of IR values.
//!
//! Scripted IR is generic: every tensor is plain `Tensor`. Specialization refines tensor types
//! (dtype, rank, known dims) for one call signature; the other types never change.

use crate::schema::DType;
use std::fmt;

/// What is known statically about a tensor. Each field is `None` when unknown.
///
/// Invariant (checked by the verifier): when `dims` is known, `rank` is known and equals
/// `dims.len()`. Use the constructors to keep it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct TensorType {
    pub dtype: Option<DType>,
    pub rank: Option<u32>,
    pub dims: Option<Vec<Option<u64>>>,
}

impl TensorType {
    /// A tensor about which nothing is known (the type of every tensor in scripted IR).
    pub fn generic() -> TensorType {
        TensorType::default()
    }

    pub fn with_dtype(dtype: DType) -> TensorType {
        TensorType {
            dtype: Some(dtype),
            ..TensorType::default()
        }
    }

    /// Known dtype (if any) and rank, unknown dims.
    pub fn ranked(dtype: Option<DType>, rank: u32) -> TensorType {
        TensorType {
            dtype,
            rank: Some(rank),
            dims: None,
        }
    }

    /// Known dtype (if any) and dims; each dim may still be unknown.
    pub fn shaped(dtype: Option<DType>, dims: Vec<Option<u64>>) -> TensorType {
        TensorType {
            dtype,
            rank: Some(dims.len() as u32),
            dims: Some(dims),
        }
    }

    pub(crate) fn is_generic(&self) -> bool {
        self.dtype.is_none() && self.rank.is_none() && self.dims.is_none()
    }

    /// Whether both types can describe the same run-time tensor: every fact known on both sides
    /// agrees.
    pub(crate) fn is_compatible(&self, other: &TensorType) -> bool {
        fn agree<T: PartialEq>(a: &Option<T>, b: &Option<T>) -> bool {
            match (a, b) {
                (Some(a), Some(b)) => a == b,
                _ => true,
            }
        }
        if !agree(&self.dtype, &other.dtype) || !agree(&self.rank, &other.rank) {
            return false;
        }
        match (&self.dims, &other.dims) {
            (Some(a), Some(b)) => a.len() == b.len() && a.iter().zip(b).all(|(x, y)| agree(x, y)),
            _ => true,
        }
    }

    /// The facts of both (`None` if they contradict): what the specializer uses to combine what
    /// it knows about a value from two sources.
    pub fn meet(&self, other: &TensorType) -> Option<TensorType> {
        if !self.is_compatible(other) {
            return None;
        }
        let dims = match (&self.dims, &other.dims) {
            (Some(a), Some(b)) => Some(a.iter().zip(b).map(|(x, y)| x.or(*y)).collect()),
            (Some(a), None) | (None, Some(a)) => Some(a.clone()),
            (None, None) => None,
        };
        Some(TensorType {
            dtype: self.dtype.or(other.dtype),
            rank: self.rank.or(other.rank),
            dims,
        })
    }

    /// Whether the invariant between `rank` and `dims` holds.
    pub(crate) fn is_well_formed(&self) -> bool {
        match &self.dims {
            Some(d) => self.rank == Some(d.len() as u32),
            None => true,
        }
    }
}

/// The type of an IR value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    /// 64-bit signed integer; arithmetic wraps on overflow.
    Int,
    /// 64-bit IEEE double.
    Float,
    Bool,
    /// The type of the value `None`.
    None,
    /// A string; only used for messages (`raise`, `check`, `print`).
    Str,
    /// A torch dtype value such as `torch.float32`, passed to creation and conversion ops.
    DType,
    Tensor(TensorType),
    /// One component of a tensor subscript (see [`crate::IndexKind`]); `List[Index]` is what the
    /// runtime's `index`/`index_put_` ops take.
    Index,
    Tuple(Vec<Type>),
    List(Box<Type>),
    /// `Dict[K, V]`: a shared, mutable, insertion-ordered dictionary; keys are `int` or `str`.
    Dict(Box<Type>, Box<Type>),
    Optional(Box<Type>),
}

impl Type {
    /// The generic tensor type.
    pub fn tensor() -> Type {
        Type::Tensor(TensorType::generic())
    }

    pub fn list(elem: Type) -> Type {
        Type::List(Box::new(elem))
    }

    pub fn optional(inner: Type) -> Type {
        Type::Optional(Box::new(inner))
    }

    pub fn dict(key: Type, value: Type) -> Type {
        Type::Dict(Box::new(key), Box::new(value))
    }

    /// Whether `Dict[self, V]` is a valid dictionary type (TorchScript's `str` and `int` keys).
    pub(crate) fn is_dict_key(&self) -> bool {
        matches!(self, Type::Int | Type::Str)
    }

    pub fn is_tensor(&self) -> bool {
        matches!(self, Type::Tensor(_))
    }

    /// `int`, `float` or `bool`.
    /// The Python scalar type of one element of a `dtype` tensor (`x[i].item()`): `bool`,
    /// `int` for integer dtypes, `float` for float dtypes.
    pub fn element_of(dtype: DType) -> Type {
        match dtype.category() {
            pyjit_runtime::dtype::Category::Bool => Type::Bool,
            pyjit_runtime::dtype::Category::Int => Type::Int,
            pyjit_runtime::dtype::Category::Float => Type::Float,
        }
    }

    pub fn is_scalar(&self) -> bool {
        matches!(self, Type::Int | Type::Float | Type::Bool)
    }

    pub fn as_tensor(&self) -> Option<&TensorType> {
        match self {
            Type::Tensor(t) => Some(t),
            _ => None,
        }
    }

    /// Whether a value of type `self` may flow where `expected` is required (an operand, a
    /// yielded value, a call argument). Types must be structurally equal, except that tensor
    /// types only need to be compatible (refinement may have learned more on one side).
    /// There are no implicit conversions: `T` into `Optional[T]` needs `opt.wrap`, `None` into
    /// `Optional[T]` needs `opt.none`, `int` into `float` needs `int.to_float`.
    pub fn is_assignable_to(&self, expected: &Type) -> bool {
        match (self, expected) {
            (Type::Tensor(a), Type::Tensor(b)) => a.is_compatible(b),
            (Type::Tuple(a), Type::Tuple(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.is_assignable_to(y))
            }
            (Type::List(a), Type::List(b)) | (Type::Optional(a), Type::Optional(b)) => {
                a.is_assignable_to(b)
            }
            (Type::Dict(ka, va), Type::Dict(kb, vb)) => ka == kb && va.is_assignable_to(vb),
            _ => self == expected,
        }
    }

    /// Whether every tensor type inside is well formed.
    pub(crate) fn is_well_formed(&self) -> bool {
        match self {
            Type::Tensor(t) => t.is_well_formed(),
            Type::Tuple(ts) => ts.iter().all(Type::is_well_formed),
            Type::List(t) | Type::Optional(t) => t.is_well_formed(),
            Type::Dict(k, v) => k.is_dict_key() && v.is_well_formed(),
            _ => true,
        }
    }

    /// The same type with every tensor made generic: what scripting would have produced.
    pub fn erased(&self) -> Type {
        match self {
            Type::Tensor(_) => Type::tensor(),
            Type::Tuple(ts) => Type::Tuple(ts.iter().map(Type::erased).collect()),
            Type::List(t) => Type::list(t.erased()),
            Type::Optional(t) => Type::optional(t.erased()),
            Type::Dict(k, v) => Type::dict(k.erased(), v.erased()),
            t => t.clone(),
        }
    }
}

/// Writes a dtype as the IR text names it (the runtime's short name: `float32`).
pub(crate) fn dtype_text(d: DType) -> &'static str {
    d.name()
}

/// Parses the IR text name of a dtype (only the exact short names, so the format stays canonical).
pub(crate) fn dtype_from_text(s: &str) -> Option<DType> {
    DType::ALL.into_iter().find(|d| d.name() == s)
}

impl fmt::Display for TensorType {
    /// `Tensor`, `Tensor[float32]`, `Tensor[?, 2]` (rank only), `Tensor[float32, [?, 3]]` (dims).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Tensor")?;
        if self.is_generic() {
            return Ok(());
        }
        f.write_str("[")?;
        match self.dtype {
            Some(d) => f.write_str(dtype_text(d))?,
            None => f.write_str("?")?,
        }
        match (&self.dims, self.rank) {
            (Some(dims), _) => {
                f.write_str(", [")?;
                for (i, d) in dims.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    match d {
                        Some(n) => write!(f, "{n}")?,
                        None => f.write_str("?")?,
                    }
                }
                f.write_str("]")?;
            }
            (None, Some(r)) => write!(f, ", {r}")?,
            (None, None) => {}
        }
        f.write_str("]")
    }
}

/// Writes `items` separated by `", "` (the element lists of the type displays).
pub fn write_comma_separated<T: fmt::Display>(
    f: &mut fmt::Formatter<'_>,
    items: impl IntoIterator<Item = T>,
) -> fmt::Result {
    for (i, it) in items.into_iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{it}")?;
    }
    Ok(())
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Int => f.write_str("int"),
            Type::Float => f.write_str("float"),
            Type::Bool => f.write_str("bool"),
            Type::None => f.write_str("None"),
            Type::Str => f.write_str("str"),
            Type::DType => f.write_str("dtype"),
            Type::Index => f.write_str("Index"),
            Type::Tensor(t) => write!(f, "{t}"),
            Type::Tuple(ts) => {
                f.write_str("Tuple[")?;
                if ts.is_empty() {
                    f.write_str("()")?;
                }
                write_comma_separated(f, ts)?;
                f.write_str("]")
            }
            Type::List(t) => write!(f, "List[{t}]"),
            Type::Optional(t) => write!(f, "Optional[{t}]"),
            Type::Dict(k, v) => write!(f, "Dict[{k}, {v}]"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display() {
        assert_eq!(Type::tensor().to_string(), "Tensor");
        assert_eq!(
            Type::Tensor(TensorType::with_dtype(DType::Float32)).to_string(),
            "Tensor[float32]"
        );
        assert_eq!(
            Type::Tensor(TensorType::ranked(None, 2)).to_string(),
            "Tensor[?, 2]"
        );
        assert_eq!(
            Type::Tensor(TensorType::shaped(Some(DType::Int64), vec![None, Some(3)])).to_string(),
            "Tensor[int64, [?, 3]]"
        );
        assert_eq!(
            Type::Tuple(vec![Type::Int, Type::list(Type::optional(Type::Float))]).to_string(),
            "Tuple[int, List[Optional[float]]]"
        );
        assert_eq!(Type::Tuple(vec![]).to_string(), "Tuple[()]");
        assert_eq!(
            Type::dict(Type::Str, Type::list(Type::Int)).to_string(),
            "Dict[str, List[int]]"
        );
    }

    #[test]
    fn compatibility() {
        let g = TensorType::generic();
        let f32_2 = TensorType::ranked(Some(DType::Float32), 2);
        let f64_2 = TensorType::ranked(Some(DType::Float64), 2);
        let s = TensorType::shaped(None, vec![Some(4), None]);
        assert!(g.is_compatible(&f32_2));
        assert!(!f32_2.is_compatible(&f64_2));
        assert!(s.is_compatible(&f32_2));
        assert_eq!(
            s.meet(&f32_2),
            Some(TensorType::shaped(
                Some(DType::Float32),
                vec![Some(4), None]
            ))
        );
        assert!(!TensorType::ranked(None, 3).is_compatible(&s));
        assert!(!Type::Int.is_assignable_to(&Type::Float));
        assert!(!Type::Int.is_assignable_to(&Type::optional(Type::Int)));
        assert!(Type::list(Type::Tensor(f32_2)).is_assignable_to(&Type::list(Type::tensor())));
    }
}
