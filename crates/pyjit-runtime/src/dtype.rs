//! Element types and PyTorch's type-promotion lattice.

use std::fmt;

/// The element type of a tensor. The order of the variants is the promotion order of PyTorch
/// restricted to these five types: `promote(a, b)` is the larger of the two.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    Bool,
    Int32,
    Int64,
    Float32,
    Float64,
}

/// The three promotion categories of PyTorch (complex is not supported).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Category {
    Bool,
    Int,
    Float,
}

/// PyTorch's default floating dtype (`torch.get_default_dtype()`), used for `int / int`, for
/// Python floats mixed with integer tensors and for float creation routines.
pub const DEFAULT_FLOAT: DType = DType::Float32;

impl DType {
    /// All dtypes, in promotion order.
    pub const ALL: [DType; 5] = [
        DType::Bool,
        DType::Int32,
        DType::Int64,
        DType::Float32,
        DType::Float64,
    ];

    /// The short name: `"float32"`, `"int64"`, `"bool"` …
    pub fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::Int32 => "int32",
            DType::Int64 => "int64",
            DType::Float32 => "float32",
            DType::Float64 => "float64",
        }
    }

    /// The name PyTorch prints: `"torch.float32"`.
    pub fn torch_name(self) -> &'static str {
        match self {
            DType::Bool => "torch.bool",
            DType::Int32 => "torch.int32",
            DType::Int64 => "torch.int64",
            DType::Float32 => "torch.float32",
            DType::Float64 => "torch.float64",
        }
    }

    /// The name PyTorch uses in kernel error messages (`"Float"`, `"Long"` …).
    pub fn scalar_type_name(self) -> &'static str {
        match self {
            DType::Bool => "Bool",
            DType::Int32 => "Int",
            DType::Int64 => "Long",
            DType::Float32 => "Float",
            DType::Float64 => "Double",
        }
    }

    /// Parses a dtype name as written after `torch.` or `np.` (`float32`, `float`, `double`,
    /// `int64`, `long`, `int32`, `int`, `bool`, `bool_`). A leading `torch.`/`np.`/`numpy.` is
    /// accepted too.
    pub fn from_name(name: &str) -> Option<DType> {
        let n = name
            .strip_prefix("torch.")
            .or_else(|| name.strip_prefix("np."))
            .or_else(|| name.strip_prefix("numpy."))
            .unwrap_or(name);
        Some(match n {
            "bool" | "bool_" => DType::Bool,
            "int32" | "int" | "intc" => DType::Int32,
            "int64" | "long" | "int_" => DType::Int64,
            "float32" | "float" | "single" => DType::Float32,
            "float64" | "double" | "float_" => DType::Float64,
            _ => return None,
        })
    }

    /// Parses a NumPy dtype name; differs from [`DType::from_name`] in that `float` and `int`
    /// mean Python's float/int, i.e. float64/int64.
    pub fn from_numpy_name(name: &str) -> Option<DType> {
        let n = name
            .strip_prefix("np.")
            .or_else(|| name.strip_prefix("numpy."))
            .unwrap_or(name);
        match n {
            "float" => Some(DType::Float64),
            "int" => Some(DType::Int64),
            _ => DType::from_name(n),
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, DType::Float32 | DType::Float64)
    }

    pub fn is_int(self) -> bool {
        matches!(self, DType::Int32 | DType::Int64)
    }

    pub fn is_bool(self) -> bool {
        self == DType::Bool
    }

    pub fn category(self) -> Category {
        match self {
            DType::Bool => Category::Bool,
            DType::Int32 | DType::Int64 => Category::Int,
            DType::Float32 | DType::Float64 => Category::Float,
        }
    }

    /// Size of one element in bytes (bool is one byte, as in PyTorch and NumPy).
    pub fn size_of(self) -> usize {
        match self {
            DType::Bool => 1,
            DType::Int32 | DType::Float32 => 4,
            DType::Int64 | DType::Float64 => 8,
        }
    }

    /// PyTorch's `canCast(from, to)`: the rule used by in-place ops and `out=`: a float result
    /// cannot be written into an integer tensor, nor a non-bool into a bool tensor.
    pub fn can_cast(from: DType, to: DType) -> bool {
        from.category() <= to.category()
    }

    /// A stable numeric code used by the C ABI (see docs/abi.md).
    pub fn code(self) -> u32 {
        match self {
            DType::Bool => 0,
            DType::Int32 => 1,
            DType::Int64 => 2,
            DType::Float32 => 3,
            DType::Float64 => 4,
        }
    }

    pub fn from_code(code: u32) -> Option<DType> {
        DType::ALL.get(code as usize).copied()
    }
}

/// `torch.promote_types(a, b)` for the supported dtypes.
pub fn promote(a: DType, b: DType) -> DType {
    a.max(b)
}

impl fmt::Display for DType {
    /// Displays as PyTorch prints a dtype: `torch.float32`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.torch_name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for d in DType::ALL {
            assert_eq!(DType::from_name(d.name()), Some(d));
            assert_eq!(DType::from_name(d.torch_name()), Some(d));
            assert_eq!(DType::from_code(d.code()), Some(d));
        }
        assert_eq!(DType::from_name("long"), Some(DType::Int64));
        assert_eq!(DType::from_name("float"), Some(DType::Float32));
        assert_eq!(DType::from_numpy_name("np.float"), Some(DType::Float64));
        assert_eq!(DType::from_name("complex64"), None);
        assert_eq!(DType::Float64.to_string(), "torch.float64");
    }

    #[test]
    fn promotion_lattice() {
        assert_eq!(promote(DType::Int64, DType::Float32), DType::Float32);
        assert_eq!(promote(DType::Int32, DType::Int64), DType::Int64);
        assert_eq!(promote(DType::Bool, DType::Int32), DType::Int32);
        assert_eq!(promote(DType::Float64, DType::Float32), DType::Float64);
        assert!(DType::can_cast(DType::Float64, DType::Float32));
        assert!(!DType::can_cast(DType::Float32, DType::Int64));
        assert!(!DType::can_cast(DType::Int32, DType::Bool));
    }
}
