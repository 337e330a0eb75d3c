//! Run-time errors as values, worded as PyTorch words them.

use thiserror::Error;

/// Every way a runtime operation can fail. The `Display` text is PyTorch's message for the same
/// failure (so that a program's error output matches eager PyTorch); [`RuntimeError::kind`] gives
/// the Python exception class PyTorch raises.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum RuntimeError {
    /// Broadcasting two shapes failed.
    #[error(
        "The size of tensor a ({a}) must match the size of tensor b ({b}) at non-singleton dimension {dim}"
    )]
    BroadcastMismatch { a: usize, b: usize, dim: usize },

    /// An integer index was outside `[-size, size)`.
    #[error("index {index} is out of bounds for dimension {dim} with size {size}")]
    IndexOutOfRange { index: i64, dim: usize, size: usize },

    /// A dim argument outside `[-rank, rank)` (rank 0 counts as 1, as in PyTorch).
    #[error("Dimension out of range (expected to be in range of [{low}, {high}], but got {dim})")]
    DimOutOfRange { dim: i64, low: i64, high: i64 },

    /// Integer `//`, `%` or `/`-with-rounding by zero.
    #[error("ZeroDivisionError")]
    ZeroDivision,

    /// `item()` of a tensor that does not hold exactly one element (`int()`/`float()` raise a
    /// [`RuntimeError::ValueError`] instead, `bool()` a [`RuntimeError::Value`], as PyTorch does).
    #[error("a Tensor with {numel} elements cannot be converted to Scalar")]
    ItemNotScalar { numel: usize },

    /// The requested tensor is too large to allocate (or its size overflows).
    #[error(
        "DefaultCPUAllocator: can't allocate memory: you tried to allocate {bytes} bytes. Error code 12 (Cannot allocate memory)"
    )]
    AllocationTooLarge { bytes: u128 },

    /// An op does not support a dtype (`"abs_cpu" not implemented for 'Bool'`) or a result cannot be
    /// cast to the output dtype.
    #[error("{0}")]
    DType(String),

    /// Any other shape error (matmul sizes, view/reshape, cat, …).
    #[error("{0}")]
    Shape(String),

    /// An indexing error other than an integer out of range (mask shape, too many indices …).
    #[error("{0}")]
    Index(String),

    /// An invalid argument value (negative size, bad step, unknown option …); PyTorch raises
    /// these as `RuntimeError`.
    #[error("{0}")]
    Value(String),

    /// An error PyTorch's Python layer raises as `ValueError` (`float(t)` of a multi-element
    /// tensor, a ragged `torch.tensor` literal, a non-positive slice step).
    #[error("{0}")]
    ValueError(String),

    /// An operation PyTorch itself refuses with `NotImplementedError` (e.g. `-` on bool tensors).
    #[error("{0}")]
    NotImplemented(String),

    /// Reading or writing `.npy`/`.npz` files.
    #[error("{0}")]
    Io(String),

    /// Arguments did not match the op's schema.
    #[error(transparent)]
    Bind(#[from] BindError),
}

/// The Python exception class PyTorch raises for an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    RuntimeError,
    IndexError,
    ValueError,
    TypeError,
    NotImplementedError,
    OSError,
}

impl ErrorKind {
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::RuntimeError => "RuntimeError",
            ErrorKind::IndexError => "IndexError",
            ErrorKind::ValueError => "ValueError",
            ErrorKind::TypeError => "TypeError",
            ErrorKind::NotImplementedError => "NotImplementedError",
            ErrorKind::OSError => "OSError",
        }
    }
}

impl RuntimeError {
    /// The exception class PyTorch raises for this error.
    pub fn kind(&self) -> ErrorKind {
        match self {
            RuntimeError::IndexOutOfRange { .. }
            | RuntimeError::DimOutOfRange { .. }
            | RuntimeError::Index(_) => ErrorKind::IndexError,
            RuntimeError::NotImplemented(_) => ErrorKind::NotImplementedError,
            RuntimeError::ValueError(_) => ErrorKind::ValueError,
            RuntimeError::Bind(_) => ErrorKind::TypeError,
            RuntimeError::Io(_) => ErrorKind::OSError,
            _ => ErrorKind::RuntimeError,
        }
    }

    /// A short stable name of the variant, used by the golden tests and the C ABI.
    pub fn variant_name(&self) -> &'static str {
        match self {
            RuntimeError::BroadcastMismatch { .. } => "BroadcastMismatch",
            RuntimeError::IndexOutOfRange { .. } => "IndexOutOfRange",
            RuntimeError::DimOutOfRange { .. } => "DimOutOfRange",
            RuntimeError::ZeroDivision => "ZeroDivision",
            RuntimeError::ItemNotScalar { .. } => "ItemNotScalar",
            RuntimeError::AllocationTooLarge { .. } => "AllocationTooLarge",
            RuntimeError::DType(_) => "DType",
            RuntimeError::Shape(_) => "Shape",
            RuntimeError::Index(_) => "Index",
            RuntimeError::Value(_) => "Value",
            RuntimeError::ValueError(_) => "ValueError",
            RuntimeError::NotImplemented(_) => "NotImplemented",
            RuntimeError::Io(_) => "Io",
            RuntimeError::Bind(_) => "Bind",
        }
    }

    pub(crate) fn not_implemented_for(kernel: &str, dtype: crate::DType) -> RuntimeError {
        RuntimeError::NotImplemented(format!(
            "\"{kernel}\" not implemented for '{}'",
            dtype.scalar_type_name()
        ))
    }
}

/// Arguments that do not fit an op's schema (wrong count, kind, unknown keyword …). Raised by
/// [`crate::dispatch::bind`]; the message names the op and the argument like TorchScript does.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum BindError {
    #[error("{op}() expected at most {max} argument(s) but received {got} argument(s)")]
    TooManyArguments { op: String, max: usize, got: usize },
    #[error("{op}() is missing value for argument '{param}'")]
    MissingArgument { op: String, param: String },
    #[error("{op}() got an unexpected keyword argument '{param}'")]
    UnknownKeyword { op: String, param: String },
    #[error("{op}() got multiple values for argument '{param}'")]
    DuplicateArgument { op: String, param: String },
    #[error(
        "{op}(): expected a value of type '{expected}' for argument '{param}' but instead found type '{found}'"
    )]
    WrongType {
        op: String,
        param: String,
        expected: String,
        found: String,
    },
    #[error("unknown builtin op: {0}")]
    UnknownOp(String),
    #[error("no overload of {op}() matches the arguments; candidates:\n{candidates}")]
    NoMatchingOverload { op: String, candidates: String },
}

/// Shorthand used throughout the crate.
pub type Result<T, E = RuntimeError> = std::result::Result<T, E>;
