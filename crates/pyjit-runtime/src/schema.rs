//! THE table of op schemas: every layer (frontend, specializer, interpreter, codegen) reads it.
//!
//! Each op is a TorchScript-style signature string, parsed once into an [`OpSchema`]:
//!
//! ```text
//! add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
//! max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)
//! ```
//!
//! Overloads of one name are tried in table order and the first whose parameters accept the
//! arguments wins ([`resolve`]), as in TorchScript. Alongside the signature each op name records
//! how Python code may spell it ([`Spelling`]: `torch.NAME`, `x.NAME(...)`, `F.NAME`, `np.NAME`),
//! which Python operator maps to it ([`operator_target`]), and its [`OpKind`], from which
//! [`infer`] derives result dtypes and ranks without running the op.
//!
//! Conventions: `Scalar` is a Python bool/int/float (a *weak* operand in type promotion); `int[N]`
//! also accepts a single int; `Index[]` is a subscript (see [`crate::value::TensorIndex`]); ops
//! ending in `_` are in place (they write into `self`, keep its dtype, and return it).

use std::collections::HashMap;
use std::fmt;
use std::sync::OnceLock;

use crate::dtype::{DEFAULT_FLOAT, DType, promote};
use crate::error::{BindError, RuntimeError};
use crate::ops::CmpOp;
use crate::promotion::{Operand, result_type};
use crate::tensor::wrap_dim;
use crate::value::{Scalar, Value};

/// The signatures, in overload-resolution order within each name.
const SIGNATURES: &[&str] = &[
    // ---- creation
    "zeros(int[] size, *, ScalarType? dtype=None) -> Tensor",
    "ones(int[] size, *, ScalarType? dtype=None) -> Tensor",
    "empty(int[] size, *, ScalarType? dtype=None) -> Tensor",
    "full(int[] size, Scalar fill_value, *, ScalarType? dtype=None) -> Tensor",
    "arange(Scalar end, *, ScalarType? dtype=None) -> Tensor",
    "arange.start(Scalar start, Scalar end, *, ScalarType? dtype=None) -> Tensor",
    "arange.start_step(Scalar start, Scalar end, Scalar step=1, *, ScalarType? dtype=None) -> Tensor",
    "linspace(Scalar start, Scalar end, int steps, *, ScalarType? dtype=None) -> Tensor",
    "eye(int n, *, ScalarType? dtype=None) -> Tensor",
    "eye.m(int n, int m, *, ScalarType? dtype=None) -> Tensor",
    "zeros_like(Tensor self, *, ScalarType? dtype=None) -> Tensor",
    "ones_like(Tensor self, *, ScalarType? dtype=None) -> Tensor",
    "empty_like(Tensor self, *, ScalarType? dtype=None) -> Tensor",
    "full_like(Tensor self, Scalar fill_value, *, ScalarType? dtype=None) -> Tensor",
    "tensor(Any data, *, ScalarType? dtype=None) -> Tensor",
    "scalar_tensor(Scalar s, *, ScalarType? dtype=None) -> Tensor",
    // ---- elementwise binary
    "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    "add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",
    "sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    "sub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",
    "rsub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    "rsub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",
    "mul.Tensor(Tensor self, Tensor other) -> Tensor",
    "mul.Scalar(Tensor self, Scalar other) -> Tensor",
    "div.Tensor(Tensor self, Tensor other) -> Tensor",
    "div.Scalar(Tensor self, Scalar other) -> Tensor",
    "div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor",
    "div.Scalar_mode(Tensor self, Scalar other, *, str? rounding_mode) -> Tensor",
    "rdiv.Scalar(Tensor self, Scalar other) -> Tensor",
    "true_divide.Tensor(Tensor self, Tensor other) -> Tensor",
    "true_divide.Scalar(Tensor self, Scalar other) -> Tensor",
    "floor_divide(Tensor self, Tensor other) -> Tensor",
    "floor_divide.Scalar(Tensor self, Scalar other) -> Tensor",
    "rfloordiv.Scalar(Tensor self, Scalar other) -> Tensor",
    "remainder.Tensor(Tensor self, Tensor other) -> Tensor",
    "remainder.Scalar(Tensor self, Scalar other) -> Tensor",
    "remainder.Scalar_Tensor(Scalar self, Tensor other) -> Tensor",
    "fmod.Tensor(Tensor self, Tensor other) -> Tensor",
    "fmod.Scalar(Tensor self, Scalar other) -> Tensor",
    "pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor",
    "pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor",
    "pow.Scalar(Scalar self, Tensor exponent) -> Tensor",
    "atan2(Tensor self, Tensor other) -> Tensor",
    "maximum(Tensor self, Tensor other) -> Tensor",
    "minimum(Tensor self, Tensor other) -> Tensor",
    "eq.Tensor(Tensor self, Tensor other) -> Tensor",
    "eq.Scalar(Tensor self, Scalar other) -> Tensor",
    "ne.Tensor(Tensor self, Tensor other) -> Tensor",
    "ne.Scalar(Tensor self, Scalar other) -> Tensor",
    "lt.Tensor(Tensor self, Tensor other) -> Tensor",
    "lt.Scalar(Tensor self, Scalar other) -> Tensor",
    "le.Tensor(Tensor self, Tensor other) -> Tensor",
    "le.Scalar(Tensor self, Scalar other) -> Tensor",
    "gt.Tensor(Tensor self, Tensor other) -> Tensor",
    "gt.Scalar(Tensor self, Scalar other) -> Tensor",
    "ge.Tensor(Tensor self, Tensor other) -> Tensor",
    "ge.Scalar(Tensor self, Scalar other) -> Tensor",
    "logical_and(Tensor self, Tensor other) -> Tensor",
    "logical_or(Tensor self, Tensor other) -> Tensor",
    "logical_xor(Tensor self, Tensor other) -> Tensor",
    "bitwise_and.Tensor(Tensor self, Tensor other) -> Tensor",
    "bitwise_and.Scalar(Tensor self, Scalar other) -> Tensor",
    "bitwise_or.Tensor(Tensor self, Tensor other) -> Tensor",
    "bitwise_or.Scalar(Tensor self, Scalar other) -> Tensor",
    "bitwise_xor.Tensor(Tensor self, Tensor other) -> Tensor",
    "bitwise_xor.Scalar(Tensor self, Scalar other) -> Tensor",
    "bitwise_left_shift.Tensor(Tensor self, Tensor other) -> Tensor",
    "bitwise_left_shift.Tensor_Scalar(Tensor self, Scalar other) -> Tensor",
    "bitwise_left_shift.Scalar_Tensor(Scalar self, Tensor other) -> Tensor",
    "bitwise_right_shift.Tensor(Tensor self, Tensor other) -> Tensor",
    "bitwise_right_shift.Tensor_Scalar(Tensor self, Scalar other) -> Tensor",
    "bitwise_right_shift.Scalar_Tensor(Scalar self, Tensor other) -> Tensor",
    // ---- elementwise unary
    "neg(Tensor self) -> Tensor",
    "positive(Tensor self) -> Tensor",
    "abs(Tensor self) -> Tensor",
    "sign(Tensor self) -> Tensor",
    "exp(Tensor self) -> Tensor",
    "expm1(Tensor self) -> Tensor",
    "log(Tensor self) -> Tensor",
    "log1p(Tensor self) -> Tensor",
    "log2(Tensor self) -> Tensor",
    "log10(Tensor self) -> Tensor",
    "sqrt(Tensor self) -> Tensor",
    "rsqrt(Tensor self) -> Tensor",
    "reciprocal(Tensor self) -> Tensor",
    "square(Tensor self) -> Tensor",
    "sin(Tensor self) -> Tensor",
    "cos(Tensor self) -> Tensor",
    "tan(Tensor self) -> Tensor",
    "tanh(Tensor self) -> Tensor",
    "tanh_fast(Tensor self) -> Tensor",
    "asin(Tensor self) -> Tensor",
    "acos(Tensor self) -> Tensor",
    "atan(Tensor self) -> Tensor",
    "sinh(Tensor self) -> Tensor",
    "cosh(Tensor self) -> Tensor",
    "sigmoid(Tensor self) -> Tensor",
    "erf(Tensor self) -> Tensor",
    "relu(Tensor self) -> Tensor",
    "gelu(Tensor self, *, str approximate='none') -> Tensor",
    "silu(Tensor self) -> Tensor",
    "softplus(Tensor self, Scalar beta=1, Scalar threshold=20) -> Tensor",
    "leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor",
    "floor(Tensor self) -> Tensor",
    "ceil(Tensor self) -> Tensor",
    "round(Tensor self) -> Tensor",
    "round.decimals(Tensor self, *, int decimals) -> Tensor",
    "trunc(Tensor self) -> Tensor",
    "clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor",
    "clamp.Tensor(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor",
    "clip(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor",
    "clip.Tensor(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor",
    "logical_not(Tensor self) -> Tensor",
    "bitwise_not(Tensor self) -> Tensor",
    "isnan(Tensor self) -> Tensor",
    "isinf(Tensor self) -> Tensor",
    "isfinite(Tensor self) -> Tensor",
    "where.self(Tensor condition, Tensor self, Tensor other) -> Tensor",
    "where.ScalarOther(Tensor condition, Tensor self, Scalar other) -> Tensor",
    "where.ScalarSelf(Tensor condition, Scalar self, Tensor other) -> Tensor",
    "where.Scalar(Tensor condition, Scalar self, Scalar other) -> Tensor",
    // ---- reductions and scans
    "sum(Tensor self, *, ScalarType? dtype=None) -> Tensor",
    "sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    "mean(Tensor self, *, ScalarType? dtype=None) -> Tensor",
    "mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    "prod(Tensor self, *, ScalarType? dtype=None) -> Tensor",
    "prod.dim_int(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    "max(Tensor self) -> Tensor",
    "max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
    "max.other(Tensor self, Tensor other) -> Tensor",
    "min(Tensor self) -> Tensor",
    "min.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
    "min.other(Tensor self, Tensor other) -> Tensor",
    "amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor",
    "amin(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor",
    "argmax(Tensor self, int? dim=None, bool keepdim=False) -> Tensor",
    "argmin(Tensor self, int? dim=None, bool keepdim=False) -> Tensor",
    "all(Tensor self) -> Tensor",
    "all.dim(Tensor self, int dim, bool keepdim=False) -> Tensor",
    "any(Tensor self) -> Tensor",
    "any.dim(Tensor self, int dim, bool keepdim=False) -> Tensor",
    "var(Tensor self, bool unbiased=True) -> Tensor",
    "var.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> Tensor",
    "var.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor",
    "std(Tensor self, bool unbiased=True) -> Tensor",
    "std.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> Tensor",
    "std.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor",
    "norm.Scalar(Tensor self, Scalar p=2) -> Tensor",
    "norm.ScalarOpt_dim(Tensor self, Scalar? p=2, int[1] dim, bool keepdim=False) -> Tensor",
    "logsumexp(Tensor self, int[1] dim, bool keepdim=False) -> Tensor",
    "softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
    "log_softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
    "cumsum(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor",
    "cumprod(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor",
    // ---- linear algebra
    "matmul(Tensor self, Tensor other) -> Tensor",
    "mm(Tensor self, Tensor mat2) -> Tensor",
    "bmm(Tensor self, Tensor mat2) -> Tensor",
    "mv(Tensor self, Tensor vec) -> Tensor",
    "dot(Tensor self, Tensor tensor) -> Tensor",
    "outer(Tensor self, Tensor vec2) -> Tensor",
    "t(Tensor self) -> Tensor",
    "linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor",
    // ---- shape
    "size(Tensor self) -> int[]",
    "size.int(Tensor self, int dim) -> int",
    "dim(Tensor self) -> int",
    "numel(Tensor self) -> int",
    "reshape(Tensor self, int[] shape) -> Tensor",
    "view(Tensor self, int[] size) -> Tensor",
    "flatten.using_ints(Tensor self, int start_dim=0, int end_dim=-1) -> Tensor",
    "squeeze(Tensor self) -> Tensor",
    "squeeze.dim(Tensor self, int dim) -> Tensor",
    "unsqueeze(Tensor self, int dim) -> Tensor",
    "transpose.int(Tensor self, int dim0, int dim1) -> Tensor",
    "permute(Tensor self, int[] dims) -> Tensor",
    "expand(Tensor self, int[] size) -> Tensor",
    "expand_as(Tensor self, Tensor other) -> Tensor",
    "contiguous(Tensor self) -> Tensor",
    "clone(Tensor self) -> Tensor",
    // NumPy's integer subscript (`x[i]` in a NumPy-style module): the `index` result copied when
    // it is one element (a NumPy scalar), itself (a view) otherwise. See `Tensor::numpy_element`.
    "np_element(Tensor self) -> Tensor",
    "cat(Tensor[] tensors, int dim=0) -> Tensor",
    "stack(Tensor[] tensors, int dim=0) -> Tensor",
    "split.Tensor(Tensor self, int split_size, int dim=0) -> Tensor[]",
    "split.sizes(Tensor self, int[] split_size, int dim=0) -> Tensor[]",
    "chunk(Tensor self, int chunks, int dim=0) -> Tensor[]",
    "flip(Tensor self, int[] dims) -> Tensor",
    "repeat(Tensor self, int[] repeats) -> Tensor",
    // ---- conversion
    "item(Tensor self) -> Scalar",
    "to.dtype(Tensor self, ScalarType dtype) -> Tensor",
    "float(Tensor self) -> Tensor",
    "double(Tensor self) -> Tensor",
    "long(Tensor self) -> Tensor",
    "int(Tensor self) -> Tensor",
    "bool(Tensor self) -> Tensor",
    "Float.Tensor(Tensor a) -> float",
    "Int.Tensor(Tensor a) -> int",
    "Bool.Tensor(Tensor a) -> bool",
    // ---- indexing, gather / scatter
    "index(Tensor self, Index[] indices) -> Tensor",
    "index_select(Tensor self, int dim, Tensor index) -> Tensor",
    "gather(Tensor self, int dim, Tensor index) -> Tensor",
    "masked_fill.Scalar(Tensor self, Tensor mask, Scalar value) -> Tensor",
    "masked_fill.Tensor(Tensor self, Tensor mask, Tensor value) -> Tensor",
    "masked_select(Tensor self, Tensor mask) -> Tensor",
    // ---- in place (augmented assignment, index assignment, explicit `_` methods)
    "index_put_(Tensor self, Index[] indices, Tensor values) -> Tensor",
    "index_put_.Scalar(Tensor self, Index[] indices, Scalar values) -> Tensor",
    "masked_fill_.Scalar(Tensor self, Tensor mask, Scalar value) -> Tensor",
    "masked_fill_.Tensor(Tensor self, Tensor mask, Tensor value) -> Tensor",
    "copy_(Tensor self, Tensor src) -> Tensor",
    "fill_.Scalar(Tensor self, Scalar value) -> Tensor",
    "fill_.Tensor(Tensor self, Tensor value) -> Tensor",
    "zero_(Tensor self) -> Tensor",
    "add_.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    "add_.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",
    "sub_.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    "sub_.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",
    "mul_.Tensor(Tensor self, Tensor other) -> Tensor",
    "mul_.Scalar(Tensor self, Scalar other) -> Tensor",
    "div_.Tensor(Tensor self, Tensor other) -> Tensor",
    "div_.Scalar(Tensor self, Scalar other) -> Tensor",
    "floor_divide_.Tensor(Tensor self, Tensor other) -> Tensor",
    "floor_divide_.Scalar(Tensor self, Scalar other) -> Tensor",
    "remainder_.Tensor(Tensor self, Tensor other) -> Tensor",
    "remainder_.Scalar(Tensor self, Scalar other) -> Tensor",
    "pow_.Tensor(Tensor self, Tensor exponent) -> Tensor",
    "pow_.Scalar(Tensor self, Scalar exponent) -> Tensor",
    "bitwise_and_.Tensor(Tensor self, Tensor other) -> Tensor",
    "bitwise_and_.Scalar(Tensor self, Scalar other) -> Tensor",
    "bitwise_or_.Tensor(Tensor self, Tensor other) -> Tensor",
    "bitwise_or_.Scalar(Tensor self, Scalar other) -> Tensor",
    "bitwise_xor_.Tensor(Tensor self, Tensor other) -> Tensor",
    "bitwise_xor_.Scalar(Tensor self, Scalar other) -> Tensor",
    "bitwise_left_shift_.Tensor(Tensor self, Tensor other) -> Tensor",
    "bitwise_left_shift_.Tensor_Scalar(Tensor self, Scalar other) -> Tensor",
    "bitwise_right_shift_.Tensor(Tensor self, Tensor other) -> Tensor",
    "bitwise_right_shift_.Tensor_Scalar(Tensor self, Scalar other) -> Tensor",
    "clamp_(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor",
    "relu_(Tensor self) -> Tensor",
    "neg_(Tensor self) -> Tensor",
    "clamp_.Tensor(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor",
    // ---- ops of real TorchScript libraries (torchvision, torchaudio, transformers, kornia)
    "dtype(Tensor self) -> ScalarType",
    "tolist_int(Tensor self) -> int[]",
    "tolist_float(Tensor self) -> float[]",
    "eq.str(str a, str b) -> bool",
    "ne.str(str a, str b) -> bool",
    "eq.ScalarType(ScalarType a, ScalarType b) -> bool",
    "ne.ScalarType(ScalarType a, ScalarType b) -> bool",
    "is_floating_point(Tensor self) -> bool",
    "to.other(Tensor self, Tensor other) -> Tensor",
    "type_as(Tensor self, Tensor other) -> Tensor",
    "type.dtype(Tensor self, ScalarType dtype) -> Tensor",
    "as_tensor(Any data, *, ScalarType? dtype=None) -> Tensor",
    "unbind.int(Tensor self, int dim=0) -> Tensor[]",
    "meshgrid.indexing(Tensor[] tensors, *, str indexing='ij') -> Tensor[]",
    "sort(Tensor self, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)",
    "topk(Tensor self, int k, int dim=-1, bool largest=True, bool sorted=True) -> (Tensor values, Tensor indices)",
    "nonzero(Tensor self) -> Tensor",
    "where(Tensor condition) -> Tensor[]",
    "tril(Tensor self, int diagonal=0) -> Tensor",
    "triu(Tensor self, int diagonal=0) -> Tensor",
    "einsum(str equation, Tensor[] tensors) -> Tensor",
    "pad(Tensor input, int[] pad, str mode='constant', float? value=None) -> Tensor",
    "dropout(Tensor input, float p=0.5, bool training=True, bool inplace=False) -> Tensor",
    "binary_cross_entropy_with_logits(Tensor input, Tensor target, Tensor? weight=None, *, str reduction='mean', Tensor? pos_weight=None) -> Tensor",
];

/// What kind of computation an op is: drives [`infer`], and tells passes what they may do with it
/// (elementwise ops may be fused; views alias their input; in-place ops write their first input).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OpKind {
    /// Makes a new tensor from sizes/scalars.
    Creation,
    /// Elementwise over broadcast inputs; result dtype by promotion.
    Elementwise,
    /// Elementwise with a bool result (comparisons, logical ops, isnan …).
    Comparison,
    /// Reduces over all dims or the given ones.
    Reduction,
    /// Same shape as the input, computed along one dim (softmax, cumsum …).
    Scan,
    /// matmul and friends.
    LinearAlgebra,
    /// Returns a view or metadata (reshape, transpose, size …) or rearranges data (cat, flip …).
    Shape,
    /// dtype conversion or Python scalar extraction.
    Conversion,
    /// Indexing, gather, masked ops.
    Indexing,
    /// Writes into its first argument and returns it.
    InPlace,
}

/// The type of a schema parameter or result.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ArgType {
    Tensor,
    /// A Python bool/int/float.
    Scalar,
    Int,
    Float,
    Bool,
    Str,
    /// A dtype (`torch.float32`).
    ScalarType,
    /// `int[]` (`None`) or `int[N]` (`Some(N)`; a single int is accepted).
    IntList(Option<usize>),
    FloatList,
    TensorList,
    /// The components of a subscript.
    Indices,
    /// Anything (the nested-list data of `torch.tensor`).
    Any,
    Optional(Box<ArgType>),
}

impl fmt::Display for ArgType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArgType::Tensor => f.write_str("Tensor"),
            ArgType::Scalar => f.write_str("Scalar"),
            ArgType::Int => f.write_str("int"),
            ArgType::Float => f.write_str("float"),
            ArgType::Bool => f.write_str("bool"),
            ArgType::Str => f.write_str("str"),
            ArgType::ScalarType => f.write_str("ScalarType"),
            ArgType::IntList(None) => f.write_str("int[]"),
            ArgType::IntList(Some(n)) => write!(f, "int[{n}]"),
            ArgType::FloatList => f.write_str("float[]"),
            ArgType::TensorList => f.write_str("Tensor[]"),
            ArgType::Indices => f.write_str("Index[]"),
            ArgType::Any => f.write_str("Any"),
            ArgType::Optional(t) => write!(f, "{t}?"),
        }
    }
}

/// A default value written in a signature.
#[derive(Clone, Debug, PartialEq)]
pub enum DefaultValue {
    None,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    IntList(Vec<i64>),
}

impl DefaultValue {
    pub fn to_value(&self) -> Value {
        match self {
            DefaultValue::None => Value::None,
            DefaultValue::Bool(b) => Value::Bool(*b),
            DefaultValue::Int(i) => Value::Int(*i),
            DefaultValue::Float(f) => Value::Float(*f),
            DefaultValue::Str(s) => Value::Str(s.clone()),
            DefaultValue::IntList(v) => Value::IntList(v.clone()),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: String,
    pub ty: ArgType,
    pub default: Option<DefaultValue>,
    /// Declared after `*`: may only be passed by keyword.
    pub kwarg_only: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Return {
    pub name: Option<String>,
    pub ty: ArgType,
}

/// How Python code may spell an op (shared by all overloads of a name).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Spelling {
    /// `torch.NAME(...)`
    pub torch: bool,
    /// `x.NAME(...)`
    pub method: bool,
    /// `F.NAME(...)` (`torch.nn.functional`)
    pub functional: bool,
    /// `np.X(...)` / `a.X(...)` names that map to this op (NumPy spelling).
    pub numpy: &'static [&'static str],
}

/// One parsed signature.
#[derive(Clone, Debug, PartialEq)]
pub struct OpSchema {
    /// `"max"`
    pub name: String,
    /// `"dim"` (empty for the default overload)
    pub overload: String,
    pub params: Vec<Param>,
    pub returns: Vec<Return>,
    pub kind: OpKind,
    pub spelling: Spelling,
    /// The name ends in `_`: writes into `self` and returns it.
    pub inplace: bool,
    /// The source signature text.
    pub signature: &'static str,
}

impl OpSchema {
    /// `"max.dim"` (or just `"max"`).
    pub fn qualified_name(&self) -> String {
        if self.overload.is_empty() {
            self.name.clone()
        } else {
            format!("{}.{}", self.name, self.overload)
        }
    }

    /// Index of the parameter called `name`.
    pub fn param_index(&self, name: &str) -> Option<usize> {
        self.params.iter().position(|p| p.name == name)
    }
}

impl fmt::Display for OpSchema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.signature)
    }
}

/// Index of an op schema in the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OpId(pub u16);

impl OpId {
    pub fn schema(self) -> &'static OpSchema {
        schema(self)
    }
}

impl fmt::Display for OpId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&schema(*self).qualified_name())
    }
}

/// The ops `fastmath` replaces, each with its fast form: `(op, fast op)`. A fast form takes
/// the same operands and gives the same dtype and shape, with a cheaper kernel of a larger
/// error (docs/kernels.md has both bounds); it has no Python spelling (`""` flags), so only
/// this lowering produces it (`pyjit_opt::fastmath`).
pub const FAST_MATH_FORMS: &[(&str, &str)] = &[("tanh", "tanh_fast")];

/// Spelling and kind per op name: `(name, flags, numpy names, kind)`, flags `T` torch, `M`
/// method, `F` functional.
const OP_INFO: &[(&str, &str, &[&str], OpKind)] = {
    use OpKind::*;
    &[
        ("zeros", "T", &["zeros"], Creation),
        ("ones", "T", &["ones"], Creation),
        ("empty", "T", &["empty"], Creation),
        ("full", "T", &["full"], Creation),
        ("arange", "T", &["arange"], Creation),
        ("linspace", "T", &["linspace"], Creation),
        ("eye", "T", &["eye"], Creation),
        ("zeros_like", "T", &["zeros_like"], Creation),
        ("ones_like", "T", &["ones_like"], Creation),
        ("empty_like", "T", &["empty_like"], Creation),
        ("full_like", "T", &["full_like"], Creation),
        ("tensor", "T", &["array", "asarray"], Creation),
        ("scalar_tensor", "T", &[], Creation),
        ("add", "TM", &["add"], Elementwise),
        ("sub", "TM", &["subtract"], Elementwise),
        ("rsub", "T", &[], Elementwise),
        ("mul", "TM", &["multiply"], Elementwise),
        ("div", "TM", &["divide"], Elementwise),
        ("rdiv", "", &[], Elementwise),
        ("true_divide", "TM", &["true_divide"], Elementwise),
        ("floor_divide", "TM", &["floor_divide"], Elementwise),
        ("rfloordiv", "", &[], Elementwise),
        ("remainder", "TM", &["remainder", "mod"], Elementwise),
        ("fmod", "TM", &["fmod"], Elementwise),
        ("pow", "TM", &["power"], Elementwise),
        ("atan2", "TM", &["arctan2"], Elementwise),
        ("maximum", "TM", &["maximum"], Elementwise),
        ("minimum", "TM", &["minimum"], Elementwise),
        ("eq", "TM", &["equal"], Comparison),
        ("ne", "TM", &["not_equal"], Comparison),
        ("lt", "TM", &["less"], Comparison),
        ("le", "TM", &["less_equal"], Comparison),
        ("gt", "TM", &["greater"], Comparison),
        ("ge", "TM", &["greater_equal"], Comparison),
        ("logical_and", "TM", &["logical_and"], Comparison),
        ("logical_or", "TM", &["logical_or"], Comparison),
        ("logical_xor", "TM", &["logical_xor"], Comparison),
        ("bitwise_and", "TM", &["bitwise_and"], Elementwise),
        ("bitwise_or", "TM", &["bitwise_or"], Elementwise),
        ("bitwise_xor", "TM", &["bitwise_xor"], Elementwise),
        ("bitwise_left_shift", "TM", &["left_shift"], Elementwise),
        ("bitwise_right_shift", "TM", &["right_shift"], Elementwise),
        ("neg", "TM", &["negative"], Elementwise),
        ("positive", "TM", &["positive"], Elementwise),
        ("abs", "TM", &["abs", "absolute"], Elementwise),
        ("sign", "TM", &["sign"], Elementwise),
        ("exp", "TM", &["exp"], Elementwise),
        ("expm1", "TM", &["expm1"], Elementwise),
        ("log", "TM", &["log"], Elementwise),
        ("log1p", "TM", &["log1p"], Elementwise),
        ("log2", "TM", &["log2"], Elementwise),
        ("log10", "TM", &["log10"], Elementwise),
        ("sqrt", "TM", &["sqrt"], Elementwise),
        ("rsqrt", "TM", &[], Elementwise),
        ("reciprocal", "TM", &["reciprocal"], Elementwise),
        ("square", "TM", &["square"], Elementwise),
        ("sin", "TM", &["sin"], Elementwise),
        ("cos", "TM", &["cos"], Elementwise),
        ("tan", "TM", &["tan"], Elementwise),
        ("tanh", "TMF", &["tanh"], Elementwise),
        ("tanh_fast", "", &[], Elementwise),
        ("asin", "TM", &["arcsin"], Elementwise),
        ("acos", "TM", &["arccos"], Elementwise),
        ("atan", "TM", &["arctan"], Elementwise),
        ("sinh", "TM", &["sinh"], Elementwise),
        ("cosh", "TM", &["cosh"], Elementwise),
        ("sigmoid", "TMF", &[], Elementwise),
        ("erf", "TM", &[], Elementwise),
        ("relu", "TMF", &[], Elementwise),
        ("gelu", "F", &[], Elementwise),
        ("silu", "F", &[], Elementwise),
        ("softplus", "F", &[], Elementwise),
        ("leaky_relu", "F", &[], Elementwise),
        ("floor", "TM", &["floor"], Elementwise),
        ("ceil", "TM", &["ceil"], Elementwise),
        ("round", "TM", &["round", "around"], Elementwise),
        ("trunc", "TM", &["trunc"], Elementwise),
        ("clamp", "TM", &["clip"], Elementwise),
        ("clip", "TM", &[], Elementwise),
        ("logical_not", "TM", &["logical_not"], Comparison),
        ("bitwise_not", "TM", &["invert", "bitwise_not"], Elementwise),
        ("isnan", "TM", &["isnan"], Comparison),
        ("isinf", "TM", &["isinf"], Comparison),
        ("isfinite", "TM", &["isfinite"], Comparison),
        ("where", "TM", &["where"], Elementwise),
        ("sum", "TM", &["sum"], Reduction),
        ("mean", "TM", &["mean"], Reduction),
        ("prod", "TM", &["prod"], Reduction),
        ("max", "TM", &[], Reduction),
        ("min", "TM", &[], Reduction),
        ("amax", "TM", &["max", "amax"], Reduction),
        ("amin", "TM", &["min", "amin"], Reduction),
        ("argmax", "TM", &["argmax"], Reduction),
        ("argmin", "TM", &["argmin"], Reduction),
        ("all", "TM", &["all"], Reduction),
        ("any", "TM", &["any"], Reduction),
        ("var", "TM", &["var"], Reduction),
        ("std", "TM", &["std"], Reduction),
        ("norm", "TM", &[], Reduction),
        ("logsumexp", "TM", &[], Reduction),
        ("softmax", "TMF", &[], Scan),
        ("log_softmax", "TMF", &[], Scan),
        ("cumsum", "TM", &["cumsum"], Scan),
        ("cumprod", "TM", &["cumprod"], Scan),
        ("matmul", "TM", &["matmul", "dot"], LinearAlgebra),
        ("mm", "TM", &[], LinearAlgebra),
        ("bmm", "TM", &[], LinearAlgebra),
        ("mv", "TM", &[], LinearAlgebra),
        ("dot", "TM", &["inner", "vdot"], LinearAlgebra),
        ("outer", "TM", &["outer"], LinearAlgebra),
        ("t", "TM", &[], Shape),
        ("linear", "F", &[], LinearAlgebra),
        ("size", "M", &[], Shape),
        ("dim", "M", &["ndim"], Shape),
        ("numel", "TM", &["size"], Shape),
        ("reshape", "TM", &["reshape"], Shape),
        ("view", "M", &[], Shape),
        ("flatten", "TM", &["ravel"], Shape),
        ("squeeze", "TM", &["squeeze"], Shape),
        ("unsqueeze", "TM", &["expand_dims"], Shape),
        ("transpose", "TM", &["swapaxes"], Shape),
        ("permute", "TM", &[], Shape),
        ("expand", "M", &["broadcast_to"], Shape),
        ("expand_as", "M", &[], Shape),
        ("contiguous", "M", &["ascontiguousarray"], Shape),
        ("clone", "TM", &["copy"], Shape),
        ("np_element", "", &[], Shape),
        ("cat", "T", &["concatenate"], Shape),
        ("stack", "T", &["stack"], Shape),
        ("split", "TM", &[], Shape),
        ("chunk", "TM", &[], Shape),
        ("flip", "TM", &["flip"], Shape),
        ("repeat", "M", &[], Shape),
        ("item", "M", &[], Conversion),
        ("to", "M", &["astype"], Conversion),
        ("float", "M", &[], Conversion),
        ("double", "M", &[], Conversion),
        ("long", "M", &[], Conversion),
        ("int", "M", &[], Conversion),
        ("bool", "M", &[], Conversion),
        ("Float", "", &[], Conversion),
        ("Int", "", &[], Conversion),
        ("Bool", "", &[], Conversion),
        ("index", "", &[], Indexing),
        ("index_select", "TM", &[], Indexing),
        ("gather", "TM", &[], Indexing),
        ("masked_fill", "TM", &[], Indexing),
        ("masked_select", "TM", &[], Indexing),
        ("dtype", "", &[], Conversion),
        ("tolist_int", "", &[], Conversion),
        ("tolist_float", "", &[], Conversion),
        ("is_floating_point", "TM", &[], Conversion),
        ("type_as", "M", &[], Conversion),
        ("type", "M", &[], Conversion),
        ("as_tensor", "T", &[], Creation),
        ("unbind", "TM", &[], Shape),
        ("meshgrid", "T", &[], Shape),
        ("sort", "TM", &["sort"], Indexing),
        ("topk", "TM", &[], Indexing),
        ("nonzero", "TM", &["nonzero"], Indexing),
        ("tril", "TM", &["tril"], Shape),
        ("triu", "TM", &["triu"], Shape),
        ("einsum", "T", &["einsum"], LinearAlgebra),
        ("pad", "F", &[], Shape),
        ("dropout", "F", &[], Shape),
        ("binary_cross_entropy_with_logits", "F", &[], Reduction),
    ]
};

/// The parsed table and its indexes.
struct Table {
    schemas: Vec<OpSchema>,
    by_name: HashMap<String, Vec<OpId>>,
    by_qualified: HashMap<String, OpId>,
    numpy: HashMap<&'static str, &'static str>,
}

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        let info: HashMap<&str, (Spelling, OpKind)> = OP_INFO
            .iter()
            .map(|(name, flags, np, kind)| {
                (
                    *name,
                    (
                        Spelling {
                            torch: flags.contains('T'),
                            method: flags.contains('M'),
                            functional: flags.contains('F'),
                            numpy: np,
                        },
                        *kind,
                    ),
                )
            })
            .collect();
        let mut schemas = Vec::with_capacity(SIGNATURES.len());
        let mut by_name: HashMap<String, Vec<OpId>> = HashMap::new();
        let mut by_qualified = HashMap::new();
        let mut numpy = HashMap::new();
        for (i, sig) in SIGNATURES.iter().enumerate() {
            // The table is a compile-time constant checked by the `table_parses` test; a parse
            // failure here is a bug in this file, not a user input.
            let mut s = parse_signature(sig).unwrap_or_else(|e| panic!("bad schema {sig}: {e}"));
            let inplace = s.name.ends_with('_');
            let base = s.name.trim_end_matches('_');
            let (spelling, kind) = if inplace {
                let method = info.get(base).map(|(sp, _)| sp.functional || sp.method);
                (
                    Spelling {
                        torch: false,
                        method: method.unwrap_or(true),
                        functional: s.name == "relu_",
                        numpy: &[],
                    },
                    OpKind::InPlace,
                )
            } else {
                info.get(s.name.as_str())
                    .copied()
                    .unwrap_or((Spelling::default(), OpKind::Elementwise))
            };
            s.spelling = spelling;
            s.kind = kind;
            s.inplace = inplace;
            let id = OpId(i as u16);
            by_name.entry(s.name.clone()).or_default().push(id);
            by_qualified.insert(s.qualified_name(), id);
            for np in spelling.numpy {
                numpy.entry(*np).or_insert_with(|| {
                    OP_INFO
                        .iter()
                        .find(|(n, ..)| *n == base)
                        .map(|(n, ..)| *n)
                        .unwrap_or("")
                });
            }
            schemas.push(s);
        }
        Table {
            schemas,
            by_name,
            by_qualified,
            numpy,
        }
    })
}

/// All schemas, in table order.
pub fn all() -> impl Iterator<Item = (OpId, &'static OpSchema)> {
    table()
        .schemas
        .iter()
        .enumerate()
        .map(|(i, s)| (OpId(i as u16), s))
}

/// The overloads of `name` (without overload suffix), in resolution order.
pub fn overloads(name: &str) -> impl Iterator<Item = (OpId, &'static OpSchema)> {
    let t = table();
    t.by_name
        .get(name)
        .map(|v| v.as_slice())
        .unwrap_or(&[])
        .iter()
        .map(move |&id| (id, &t.schemas[id.0 as usize]))
}

/// The schema of an op id. Ids come from this table, so the index is always valid; an id forged
/// out of range yields the first schema rather than panicking.
pub fn schema(id: OpId) -> &'static OpSchema {
    let t = table();
    t.schemas.get(id.0 as usize).unwrap_or(&t.schemas[0])
}

/// Looks up `"max.dim"` or `"relu"` (a name without overload finds the default overload, or the
/// first one if there is no default).
pub fn lookup(qualified: &str) -> Option<OpId> {
    let t = table();
    t.by_qualified
        .get(qualified)
        .copied()
        .or_else(|| t.by_name.get(qualified).and_then(|v| v.first().copied()))
}

/// Whether any op has this name.
pub fn has_op(name: &str) -> bool {
    table().by_name.contains_key(name)
}

/// The op a NumPy function or array method name (`"arctan2"`, `"concatenate"`) maps to. Only
/// names whose argument order and meaning agree with the op are listed (`np.dot` is `matmul`,
/// which agrees with it up to 2-d; `np.take`/`np.transpose`/`np.array_split` are absent because
/// they differ). The NumPy conventions that change the op's arguments (float64 creation, `np.full`'s
/// dtype from the fill value, `ddof`) are [`crate::numpy`]'s; `axis`/`keepdims` keywords are
/// accepted by [`bind`] as `dim`/`keepdim`; `np.max`/`np.min` map to `amax`/`amin` (values only,
/// no indices).
pub fn numpy_function(np_name: &str) -> Option<&'static str> {
    table()
        .numpy
        .get(np_name)
        .copied()
        .filter(|s| !s.is_empty())
}

/// The in-place variant of an op name (`"add"` → `"add_"`), if the table has one.
pub fn inplace_variant(name: &str) -> Option<&'static str> {
    let want = format!("{name}_");
    table()
        .by_name
        .keys()
        .find(|k| **k == want)
        .map(|k| k.as_str())
}

// ------------------------------------------------------------------------------- operators

/// A Python operator on tensors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PyOperator {
    Add,
    Sub,
    Mul,
    Div,
    FloorDiv,
    Mod,
    Pow,
    MatMul,
    BitAnd,
    BitOr,
    BitXor,
    LShift,
    RShift,
    /// `==`, `!=`, `<`, `<=`, `>`, `>=`
    Cmp(CmpOp),
    /// unary `-`
    Neg,
    /// unary `+`
    Pos,
    /// unary `~`
    Invert,
}

/// Which form of an operator: `a op b` with a tensor on the left, `scalar op tensor`
/// (Python's reflected `__rop__`), or augmented assignment `a op= b` on a tensor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OperatorForm {
    Forward,
    Reflected,
    InPlace,
}

/// The op an operator calls. With `swap`, call it as `name(rhs, lhs)`; otherwise `name(lhs, rhs)`
/// (`name(operand)` for unary operators). Overload resolution then picks `.Tensor`/`.Scalar`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OperatorTarget {
    pub name: &'static str,
    pub swap: bool,
}

/// Maps a Python operator to an op name. `None` means the form does not exist for tensors:
/// `x @= y` is not in place in PyTorch (Python falls back to `x = x @ y`), and a reflected
/// matmul with a scalar is a type error.
pub fn operator_target(op: PyOperator, form: OperatorForm) -> Option<OperatorTarget> {
    use PyOperator::*;
    let t = |name, swap| Some(OperatorTarget { name, swap });
    match form {
        OperatorForm::Forward => {
            let name = match op {
                Add => "add",
                Sub => "sub",
                Mul => "mul",
                Div => "div",
                FloorDiv => "floor_divide",
                Mod => "remainder",
                Pow => "pow",
                MatMul => "matmul",
                BitAnd => "bitwise_and",
                BitOr => "bitwise_or",
                BitXor => "bitwise_xor",
                LShift => "bitwise_left_shift",
                RShift => "bitwise_right_shift",
                Cmp(c) => c.name(),
                Neg => "neg",
                Pos => "positive",
                Invert => "bitwise_not",
            };
            t(name, false)
        }
        OperatorForm::Reflected => match op {
            Add => t("add", true),
            Mul => t("mul", true),
            BitAnd => t("bitwise_and", true),
            BitOr => t("bitwise_or", true),
            BitXor => t("bitwise_xor", true),
            Cmp(c) => t(c.swapped().name(), true),
            Sub => t("rsub", true),
            Div => t("rdiv", true),
            FloorDiv => t("rfloordiv", true),
            Mod => t("remainder", false),
            Pow => t("pow", false),
            LShift => t("bitwise_left_shift", false),
            RShift => t("bitwise_right_shift", false),
            MatMul | Neg | Pos | Invert => None,
        },
        OperatorForm::InPlace => {
            let name = match op {
                Add => "add_",
                Sub => "sub_",
                Mul => "mul_",
                Div => "div_",
                FloorDiv => "floor_divide_",
                Mod => "remainder_",
                Pow => "pow_",
                BitAnd => "bitwise_and_",
                BitOr => "bitwise_or_",
                BitXor => "bitwise_xor_",
                LShift => "bitwise_left_shift_",
                RShift => "bitwise_right_shift_",
                _ => return None,
            };
            t(name, false)
        }
    }
}

// ------------------------------------------------------------------------------- parsing

fn parse_type(s: &str) -> Result<ArgType, String> {
    if let Some(inner) = s.strip_suffix('?') {
        return Ok(ArgType::Optional(Box::new(parse_type(inner)?)));
    }
    Ok(match s {
        "Tensor" => ArgType::Tensor,
        "Scalar" => ArgType::Scalar,
        "int" => ArgType::Int,
        "float" => ArgType::Float,
        "bool" => ArgType::Bool,
        "str" => ArgType::Str,
        "ScalarType" => ArgType::ScalarType,
        "int[]" => ArgType::IntList(None),
        "float[]" => ArgType::FloatList,
        "Tensor[]" => ArgType::TensorList,
        "Index[]" => ArgType::Indices,
        "Any" => ArgType::Any,
        _ => {
            if let Some(n) = s.strip_prefix("int[").and_then(|r| r.strip_suffix(']')) {
                ArgType::IntList(Some(n.parse().map_err(|_| format!("bad type {s}"))?))
            } else {
                return Err(format!("unknown type {s}"));
            }
        }
    })
}

fn parse_default(s: &str) -> Result<DefaultValue, String> {
    Ok(match s {
        "None" => DefaultValue::None,
        "True" => DefaultValue::Bool(true),
        "False" => DefaultValue::Bool(false),
        _ if s.starts_with('[') => {
            let body = &s[1..s.len() - 1];
            DefaultValue::IntList(
                body.split(',')
                    .map(str::trim)
                    .filter(|x| !x.is_empty())
                    .map(|x| x.parse().map_err(|_| format!("bad default {s}")))
                    .collect::<Result<_, _>>()?,
            )
        }
        _ if s.starts_with('\'') => DefaultValue::Str(s.trim_matches('\'').to_string()),
        _ => {
            if let Ok(i) = s.parse::<i64>() {
                DefaultValue::Int(i)
            } else {
                DefaultValue::Float(s.parse().map_err(|_| format!("bad default {s}"))?)
            }
        }
    })
}

/// Parses one signature string (`"name.overload(params) -> returns"`).
pub fn parse_signature(sig: &'static str) -> Result<OpSchema, String> {
    let open = sig.find('(').ok_or("missing (")?;
    let close = sig.rfind(") ->").ok_or("missing ) ->")?;
    let full_name = &sig[..open];
    let (name, overload) = match full_name.split_once('.') {
        Some((n, o)) => (n.to_string(), o.to_string()),
        None => (full_name.to_string(), String::new()),
    };
    let mut params = Vec::new();
    let mut kwarg_only = false;
    for p in sig[open + 1..close].split(", ").filter(|p| !p.is_empty()) {
        if p == "*" {
            kwarg_only = true;
            continue;
        }
        let (decl, default) = match p.split_once('=') {
            Some((d, v)) => (d, Some(parse_default(v)?)),
            None => (p, None),
        };
        let (ty, pname) = decl
            .rsplit_once(' ')
            .ok_or_else(|| format!("bad param {p}"))?;
        params.push(Param {
            name: pname.to_string(),
            ty: parse_type(ty)?,
            default,
            kwarg_only,
        });
    }
    let ret = sig[close + 4..].trim();
    let returns = if let Some(inner) = ret.strip_prefix('(').and_then(|r| r.strip_suffix(')')) {
        inner
            .split(", ")
            .filter(|r| !r.is_empty())
            .map(|r| {
                let (ty, name) = match r.rsplit_once(' ') {
                    Some((t, n)) => (t, Some(n.to_string())),
                    None => (r, None),
                };
                Ok(Return {
                    name,
                    ty: parse_type(ty)?,
                })
            })
            .collect::<Result<Vec<_>, String>>()?
    } else {
        vec![Return {
            name: None,
            ty: parse_type(ret)?,
        }]
    };
    Ok(OpSchema {
        name,
        overload,
        params,
        returns,
        kind: OpKind::Elementwise,
        spelling: Spelling::default(),
        inplace: false,
        signature: sig,
    })
}

// ------------------------------------------------------------------------------- binding

/// The kind of an argument as far as overload resolution cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgKind {
    None,
    Bool,
    Int,
    Float,
    Str,
    DType,
    IntList,
    FloatList,
    BoolList,
    List,
    Tensor,
    TensorList,
    Indices,
    /// Statically unknown: accepted by every parameter type.
    Unknown,
}

impl ArgKind {
    fn name(self) -> &'static str {
        match self {
            ArgKind::None => "NoneType",
            ArgKind::Bool => "bool",
            ArgKind::Int => "int",
            ArgKind::Float => "float",
            ArgKind::Str => "str",
            ArgKind::DType => "ScalarType",
            ArgKind::IntList => "List[int]",
            ArgKind::FloatList => "List[float]",
            ArgKind::BoolList => "List[bool]",
            ArgKind::List => "List",
            ArgKind::Tensor => "Tensor",
            ArgKind::TensorList => "List[Tensor]",
            ArgKind::Indices => "Indices",
            ArgKind::Unknown => "Any",
        }
    }
}

/// Whether a parameter of type `ty` accepts an argument of kind `k`.
pub fn accepts(ty: &ArgType, k: ArgKind) -> bool {
    if k == ArgKind::Unknown || *ty == ArgType::Any {
        return true;
    }
    match ty {
        ArgType::Optional(inner) => k == ArgKind::None || accepts(inner, k),
        ArgType::Tensor => k == ArgKind::Tensor,
        ArgType::Scalar => matches!(k, ArgKind::Bool | ArgKind::Int | ArgKind::Float),
        ArgType::Int => k == ArgKind::Int,
        ArgType::Float => matches!(k, ArgKind::Int | ArgKind::Float),
        ArgType::Bool => k == ArgKind::Bool,
        ArgType::Str => k == ArgKind::Str,
        ArgType::ScalarType => k == ArgKind::DType,
        ArgType::IntList(_) => matches!(k, ArgKind::IntList | ArgKind::Int | ArgKind::List),
        ArgType::FloatList => matches!(k, ArgKind::FloatList | ArgKind::IntList | ArgKind::List),
        ArgType::TensorList => matches!(k, ArgKind::TensorList | ArgKind::List),
        ArgType::Indices => k == ArgKind::Indices,
        ArgType::Any => true,
    }
}

/// An argument that [`bind`] can place: runtime [`Value`]s and static [`ArgInfo`]s both are.
pub trait BindArg: Clone {
    fn kind(&self) -> ArgKind;
    /// The argument for a default value.
    fn from_default(d: &DefaultValue) -> Self;
    /// Converts to the canonical form of `ty` (int → float for `float`, int → `[int]` for
    /// `int[N]`, list of ints → int list); `None` if the value does not fit after all.
    fn coerce(self, ty: &ArgType) -> Option<Self>;
    /// Packs trailing positional ints into one int list (`x.view(2, 3)`, `torch.zeros(2, 3)`).
    fn pack_ints(items: Vec<Self>) -> Option<Self>;
}

impl BindArg for Value {
    fn kind(&self) -> ArgKind {
        match self {
            Value::None => ArgKind::None,
            Value::Bool(_) => ArgKind::Bool,
            Value::Int(_) => ArgKind::Int,
            Value::Float(_) => ArgKind::Float,
            Value::Str(_) => ArgKind::Str,
            Value::DType(_) => ArgKind::DType,
            Value::IntList(_) => ArgKind::IntList,
            Value::FloatList(_) => ArgKind::FloatList,
            Value::BoolList(_) => ArgKind::BoolList,
            Value::List(_) => ArgKind::List,
            Value::Tensor(_) => ArgKind::Tensor,
            Value::TensorList(_) => ArgKind::TensorList,
            Value::Indices(_) => ArgKind::Indices,
        }
    }

    fn from_default(d: &DefaultValue) -> Self {
        d.to_value()
    }

    fn coerce(self, ty: &ArgType) -> Option<Self> {
        match (ty, self) {
            (ArgType::Optional(_), Value::None) => Some(Value::None),
            (ArgType::Optional(inner), v) => v.coerce(inner),
            (ArgType::Float, Value::Int(i)) => Some(Value::Float(i as f64)),
            (ArgType::IntList(_), v) => v.as_int_list().map(Value::IntList),
            (ArgType::FloatList, Value::IntList(v)) => {
                Some(Value::FloatList(v.iter().map(|&i| i as f64).collect()))
            }
            (ArgType::FloatList, Value::List(items)) => items
                .iter()
                .map(Value::as_float)
                .collect::<Option<Vec<_>>>()
                .map(Value::FloatList),
            (ArgType::TensorList, Value::List(items)) => items
                .into_iter()
                .map(Value::into_tensor)
                .collect::<Option<Vec<_>>>()
                .map(Value::TensorList),
            (_, v) => Some(v),
        }
    }

    fn pack_ints(items: Vec<Self>) -> Option<Self> {
        items
            .iter()
            .map(Value::as_int)
            .collect::<Option<Vec<_>>>()
            .map(Value::IntList)
    }
}

fn alias_keyword(name: &str) -> Option<&'static str> {
    Some(match name {
        "input" => "self",
        "axis" => "dim",
        "keepdims" => "keepdim",
        "other" => "other",
        _ => return None,
    })
}

/// Places `positional` and `keywords` into the schema's parameter order, fills defaults, checks
/// kinds and converts to canonical forms (see [`BindArg::coerce`]). Keywords `input`, `axis` and
/// `keepdims` are accepted for `self`, `dim` and `keepdim` (torch's Python names and NumPy's).
pub fn bind<A: BindArg>(
    id: OpId,
    positional: Vec<A>,
    keywords: Vec<(String, A)>,
) -> Result<Vec<A>, BindError> {
    let s = schema(id);
    let op = s.qualified_name();
    let n_pos_params = s.params.iter().filter(|p| !p.kwarg_only).count();
    let mut positional = positional;
    if positional.len() > n_pos_params && n_pos_params > 0 {
        let last = &s.params[n_pos_params - 1];
        if matches!(last.ty, ArgType::IntList(_)) {
            let extra = positional.split_off(n_pos_params - 1);
            match A::pack_ints(extra) {
                Some(packed) => positional.push(packed),
                None => {
                    return Err(BindError::TooManyArguments {
                        op,
                        max: n_pos_params,
                        got: n_pos_params + 1,
                    });
                }
            }
        }
    }
    if positional.len() > n_pos_params {
        return Err(BindError::TooManyArguments {
            op,
            max: n_pos_params,
            got: positional.len(),
        });
    }
    let mut slots: Vec<Option<A>> = vec![None; s.params.len()];
    for (i, a) in positional.into_iter().enumerate() {
        slots[i] = Some(a);
    }
    for (k, a) in keywords {
        let idx = s
            .param_index(&k)
            .or_else(|| alias_keyword(&k).and_then(|al| s.param_index(al)));
        let Some(idx) = idx else {
            return Err(BindError::UnknownKeyword { op, param: k });
        };
        if slots[idx].is_some() {
            return Err(BindError::DuplicateArgument {
                op,
                param: s.params[idx].name.clone(),
            });
        }
        slots[idx] = Some(a);
    }
    let mut out = Vec::with_capacity(slots.len());
    for (p, slot) in s.params.iter().zip(slots) {
        let a = match slot {
            Some(a) => a,
            None => match &p.default {
                Some(d) => A::from_default(d),
                None => {
                    // `Tensor? bias` style params without a default still need a value; the
                    // optional ones without default (e.g. `int[1]? dim`) are required, as in
                    // TorchScript.
                    return Err(BindError::MissingArgument {
                        op,
                        param: p.name.clone(),
                    });
                }
            },
        };
        let k = a.kind();
        let wrong = |found: ArgKind| BindError::WrongType {
            op: op.clone(),
            param: p.name.clone(),
            expected: p.ty.to_string(),
            found: found.name().to_string(),
        };
        if !accepts(&p.ty, k) {
            return Err(wrong(k));
        }
        out.push(a.coerce(&p.ty).ok_or_else(|| wrong(k))?);
    }
    Ok(out)
}

/// TorchScript-style overload resolution: binds against each overload of `name` in table order
/// and returns the first that fits.
pub fn resolve<A: BindArg>(
    name: &str,
    positional: Vec<A>,
    keywords: Vec<(String, A)>,
) -> Result<(OpId, Vec<A>), BindError> {
    let cands: Vec<(OpId, &OpSchema)> = overloads(name).collect();
    if cands.is_empty() {
        return Err(BindError::UnknownOp(name.to_string()));
    }
    let mut first_err = None;
    for (id, _) in &cands {
        match bind(*id, positional.clone(), keywords.clone()) {
            Ok(args) => return Ok((*id, args)),
            Err(e) => {
                if first_err.is_none() {
                    first_err = Some(e);
                }
            }
        }
    }
    if cands.len() == 1
        && let Some(e) = first_err
    {
        return Err(e);
    }
    Err(BindError::NoMatchingOverload {
        op: name.to_string(),
        candidates: cands
            .iter()
            .map(|(_, s)| format!("  {}", s.signature))
            .collect::<Vec<_>>()
            .join("\n"),
    })
}

// ------------------------------------------------------------------------------- inference

/// A tensor's statically known type: dtype and rank (the specialization key).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TensorInfo {
    pub dtype: DType,
    pub rank: usize,
}

/// What the specializer knows about one argument.
#[derive(Clone, Debug)]
pub enum ArgInfo {
    Tensor(TensorInfo),
    /// A compile-time constant.
    Known(Value),
    Int,
    Float,
    Bool,
    /// An int list of known or unknown length.
    IntList(Option<usize>),
    /// A list of tensors; element infos if known.
    TensorList(Option<Vec<TensorInfo>>),
    Unknown,
}

impl BindArg for ArgInfo {
    fn kind(&self) -> ArgKind {
        match self {
            ArgInfo::Tensor(_) => ArgKind::Tensor,
            ArgInfo::Known(v) => v.kind(),
            ArgInfo::Int => ArgKind::Int,
            ArgInfo::Float => ArgKind::Float,
            ArgInfo::Bool => ArgKind::Bool,
            ArgInfo::IntList(_) => ArgKind::IntList,
            ArgInfo::TensorList(_) => ArgKind::TensorList,
            ArgInfo::Unknown => ArgKind::Unknown,
        }
    }

    fn from_default(d: &DefaultValue) -> Self {
        ArgInfo::Known(d.to_value())
    }

    fn coerce(self, ty: &ArgType) -> Option<Self> {
        match (ty, self) {
            (ArgType::Optional(inner), ArgInfo::Known(Value::None)) => {
                let _ = inner;
                Some(ArgInfo::Known(Value::None))
            }
            (ArgType::Optional(inner), a) => a.coerce(inner),
            (_, ArgInfo::Known(v)) => v.coerce(ty).map(ArgInfo::Known),
            (ArgType::Float, ArgInfo::Int) => Some(ArgInfo::Float),
            (ArgType::IntList(_), ArgInfo::Int) => Some(ArgInfo::IntList(Some(1))),
            (_, a) => Some(a),
        }
    }

    fn pack_ints(items: Vec<Self>) -> Option<Self> {
        let known: Option<Vec<i64>> = items
            .iter()
            .map(|a| match a {
                ArgInfo::Known(Value::Int(i)) => Some(*i),
                _ => None,
            })
            .collect();
        if let Some(v) = known {
            return Some(ArgInfo::Known(Value::IntList(v)));
        }
        items
            .iter()
            .all(|a| {
                matches!(
                    a,
                    ArgInfo::Int | ArgInfo::Known(Value::Int(_)) | ArgInfo::Unknown
                )
            })
            .then_some(ArgInfo::IntList(Some(items.len())))
    }
}

/// The static type of a result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TypeInfo {
    Tensor(TensorInfo),
    Int,
    Float,
    Bool,
    IntList,
    /// A list of tensors of one type; length if known.
    TensorList(TensorInfo, Option<usize>),
}

fn info_tensor(a: &ArgInfo) -> Option<TensorInfo> {
    match a {
        ArgInfo::Tensor(t) => Some(*t),
        ArgInfo::Known(Value::Tensor(t)) => Some(TensorInfo {
            dtype: t.dtype(),
            rank: t.dim(),
        }),
        _ => None,
    }
}

fn info_operand(a: &ArgInfo) -> Option<Operand> {
    Some(match a {
        ArgInfo::Tensor(t) => Operand::Tensor {
            dtype: t.dtype,
            zero_dim: t.rank == 0,
        },
        ArgInfo::Known(Value::Tensor(t)) => Operand::Tensor {
            dtype: t.dtype(),
            zero_dim: t.dim() == 0,
        },
        ArgInfo::Int | ArgInfo::Known(Value::Int(_)) => Operand::Scalar(Scalar::Int(0)),
        ArgInfo::Float | ArgInfo::Known(Value::Float(_)) => Operand::Scalar(Scalar::Float(0.0)),
        ArgInfo::Bool | ArgInfo::Known(Value::Bool(_)) => Operand::Scalar(Scalar::Bool(false)),
        _ => return None,
    })
}

fn known_dtype(a: Option<&ArgInfo>) -> Option<DType> {
    match a {
        Some(ArgInfo::Known(Value::DType(d))) => Some(*d),
        _ => None,
    }
}

fn known_int(a: Option<&ArgInfo>) -> Option<i64> {
    match a {
        Some(ArgInfo::Known(Value::Int(i))) => Some(*i),
        _ => None,
    }
}

fn known_bool(a: Option<&ArgInfo>) -> Option<bool> {
    match a {
        Some(ArgInfo::Known(Value::Bool(b))) => Some(*b),
        _ => None,
    }
}

fn list_len(a: Option<&ArgInfo>) -> Option<usize> {
    match a {
        Some(ArgInfo::Known(v)) => v.as_int_list().map(|l| l.len()),
        Some(ArgInfo::IntList(n)) => *n,
        _ => None,
    }
}

fn infer_error(id: OpId, what: &str) -> RuntimeError {
    RuntimeError::Value(format!("cannot infer the result of {id}: {what}"))
}

/// Result types of op `id` applied to arguments described by `args` (bound in schema order, as
/// [`bind`] returns them), without running it. Fails when the arguments are certain to be
/// rejected (e.g. a dim out of range) or when a needed constant is unknown.
pub fn infer(id: OpId, args: &[ArgInfo]) -> Result<Vec<TypeInfo>, RuntimeError> {
    let s = schema(id);
    let name = s.name.as_str();
    let t0 = args.first().and_then(info_tensor);
    let need_t0 = || t0.ok_or_else(|| infer_error(id, "first argument is not a tensor"));
    let dtype_arg = s
        .param_index("dtype")
        .and_then(|i| known_dtype(args.get(i)));
    let tensor = |dtype, rank| Ok(vec![TypeInfo::Tensor(TensorInfo { dtype, rank })]);
    let promoted = |args: &[ArgInfo]| -> Result<(DType, usize), RuntimeError> {
        let ops: Vec<Operand> = args
            .iter()
            .zip(&s.params)
            .filter(|(_, p)| !p.kwarg_only && p.name != "alpha")
            .filter_map(|(a, _)| info_operand(a))
            .collect();
        let dt = result_type(&ops).ok_or_else(|| infer_error(id, "no operands"))?;
        let rank = args
            .iter()
            .filter_map(info_tensor)
            .map(|t| t.rank)
            .max()
            .unwrap_or(0);
        Ok((dt, rank))
    };
    let float_of = |d: DType| if d.is_float() { d } else { DEFAULT_FLOAT };
    let reduce_rank = |rank: usize, dims: Option<usize>, keepdim: bool| -> usize {
        if keepdim {
            rank
        } else {
            match dims {
                Some(0) | None => 0,
                Some(n) => rank.saturating_sub(n),
            }
        }
    };
    if s.inplace {
        let t = need_t0()?;
        return tensor(t.dtype, t.rank);
    }
    // The ops of real TorchScript libraries whose types the kind-based rules below do not give.
    match (name, s.overload.as_str()) {
        ("dtype", _) | ("einsum", _) | ("meshgrid", _) => {
            return Err(infer_error(id, "not inferred"));
        }
        ("tolist_int", _) => return Ok(vec![TypeInfo::IntList]),
        ("tolist_float", _) => return Err(infer_error(id, "not inferred")),
        ("is_floating_point", _) | ("eq" | "ne", "str" | "ScalarType") => {
            return Ok(vec![TypeInfo::Bool]);
        }
        ("to" | "type_as", "other" | "") => {
            let t = need_t0()?;
            let o = args
                .get(1)
                .and_then(info_tensor)
                .ok_or_else(|| infer_error(id, "other is not a tensor"))?;
            return tensor(o.dtype, t.rank);
        }
        ("type", _) => {
            let t = need_t0()?;
            return tensor(
                dtype_arg.ok_or_else(|| infer_error(id, "unknown dtype"))?,
                t.rank,
            );
        }
        ("as_tensor", _) => {
            return Err(infer_error(id, "not inferred"));
        }
        ("unbind", _) => {
            let t = need_t0()?;
            if t.rank == 0 {
                return Err(infer_error(id, "unbind of a 0-d tensor"));
            }
            return Ok(vec![TypeInfo::TensorList(
                TensorInfo {
                    dtype: t.dtype,
                    rank: t.rank - 1,
                },
                None,
            )]);
        }
        ("sort" | "topk", _) => {
            let t = need_t0()?;
            return Ok(vec![
                TypeInfo::Tensor(t),
                TypeInfo::Tensor(TensorInfo {
                    dtype: DType::Int64,
                    rank: t.rank,
                }),
            ]);
        }
        ("nonzero", _) => return tensor(DType::Int64, 2),
        ("where", "") => {
            return Ok(vec![TypeInfo::TensorList(
                TensorInfo {
                    dtype: DType::Int64,
                    rank: 1,
                },
                need_t0().ok().map(|t| t.rank),
            )]);
        }
        ("tril" | "triu" | "pad" | "dropout", _) => {
            let t = need_t0()?;
            return tensor(t.dtype, t.rank);
        }
        ("binary_cross_entropy_with_logits", _) => {
            let t = need_t0()?;
            let rank = match args.get(3) {
                Some(ArgInfo::Known(Value::Str(r))) if r == "none" => t.rank,
                Some(ArgInfo::Known(Value::Str(_))) => 0,
                _ => return Err(infer_error(id, "unknown reduction")),
            };
            return tensor(float_of(t.dtype), rank);
        }
        _ => {}
    }
    match s.kind {
        OpKind::Creation => {
            let dt = match name {
                "zeros_like" | "ones_like" | "empty_like" | "full_like" => {
                    dtype_arg.unwrap_or(need_t0()?.dtype)
                }
                "full" => dtype_arg.unwrap_or(match args.get(1) {
                    Some(ArgInfo::Int | ArgInfo::Known(Value::Int(_))) => DType::Int64,
                    Some(ArgInfo::Bool | ArgInfo::Known(Value::Bool(_))) => DType::Bool,
                    _ => DEFAULT_FLOAT,
                }),
                "arange" | "scalar_tensor" => dtype_arg.unwrap_or_else(|| {
                    let n = args.len().saturating_sub(1);
                    let any_float = args[..n]
                        .iter()
                        .any(|a| matches!(a, ArgInfo::Float | ArgInfo::Known(Value::Float(_))));
                    let all_bool = n > 0
                        && args[..n]
                            .iter()
                            .all(|a| matches!(a, ArgInfo::Bool | ArgInfo::Known(Value::Bool(_))));
                    if any_float {
                        DEFAULT_FLOAT
                    } else if all_bool && name == "scalar_tensor" {
                        DType::Bool
                    } else {
                        DType::Int64
                    }
                }),
                "tensor" => match dtype_arg {
                    Some(d) => d,
                    None => match args.first() {
                        Some(ArgInfo::Known(v)) => crate::ops::literal_dtype(v)
                            .ok_or_else(|| infer_error(id, "unsupported literal"))?,
                        Some(ArgInfo::Int) => DType::Int64,
                        Some(ArgInfo::Float) => DEFAULT_FLOAT,
                        Some(ArgInfo::Bool) => DType::Bool,
                        _ => return Err(infer_error(id, "unknown literal")),
                    },
                },
                _ => dtype_arg.unwrap_or(DEFAULT_FLOAT),
            };
            let rank = match name {
                "zeros" | "ones" | "empty" | "full" => {
                    list_len(args.first()).ok_or_else(|| infer_error(id, "unknown size length"))?
                }
                "arange" | "linspace" => 1,
                "eye" => 2,
                "scalar_tensor" => 0,
                "tensor" => match args.first() {
                    Some(ArgInfo::Known(v)) => crate::ops::literal_shape(v)
                        .map(|s| s.len())
                        .ok_or_else(|| infer_error(id, "ragged literal"))?,
                    Some(ArgInfo::Int | ArgInfo::Float | ArgInfo::Bool) => 0,
                    _ => return Err(infer_error(id, "unknown literal")),
                },
                _ => need_t0()?.rank,
            };
            tensor(dt, rank)
        }
        OpKind::Elementwise => {
            let (dt, rank) = promoted(args)?;
            let dt = match name {
                "div" | "true_divide" | "rdiv" => {
                    let mode = s.param_index("rounding_mode").map(|i| &args[i]);
                    match mode {
                        Some(ArgInfo::Known(Value::Str(_))) => dt,
                        _ => float_of(dt),
                    }
                }
                "exp" | "expm1" | "log" | "log1p" | "log2" | "log10" | "sqrt" | "rsqrt"
                | "reciprocal" | "sin" | "cos" | "tan" | "tanh" | "tanh_fast" | "asin" | "acos"
                | "atan" | "sinh" | "cosh" | "sigmoid" | "erf" | "atan2" => float_of(dt),
                "where" => {
                    let ops: Vec<Operand> = args[1..].iter().filter_map(info_operand).collect();
                    result_type(&ops).ok_or_else(|| infer_error(id, "no operands"))?
                }
                "square" if dt == DType::Bool => DType::Int64,
                "pow"
                    if matches!(
                        args.get(1),
                        Some(ArgInfo::Float | ArgInfo::Known(Value::Float(_)))
                    ) =>
                {
                    float_of(dt)
                }
                _ => dt,
            };
            tensor(dt, rank)
        }
        OpKind::Comparison => {
            let (_, rank) = promoted(args)?;
            tensor(DType::Bool, rank)
        }
        OpKind::Reduction => {
            let t = need_t0()?;
            let keepdim = s
                .param_index("keepdim")
                .and_then(|i| known_bool(args.get(i)))
                .unwrap_or(false);
            let dims = s.param_index("dim").map(|i| match args.get(i) {
                Some(ArgInfo::Known(Value::None)) => Some(0),
                a => list_len(a),
            });
            if let Some(i) = s.param_index("dim")
                && let Some(d) = known_int(args.get(i))
            {
                wrap_dim(d, t.rank)?;
            }
            let rank = match dims {
                None => 0,
                Some(n) => {
                    if n.is_none() && !keepdim {
                        return Err(infer_error(id, "unknown number of reduced dims"));
                    }
                    reduce_rank(t.rank, n, keepdim)
                }
            };
            let rank = if name == "max" || name == "min" {
                if s.overload == "other" {
                    let (dt, r) = promoted(args)?;
                    return tensor(dt, r);
                }
                rank
            } else {
                rank
            };
            let dt = match name {
                "sum" | "prod" => dtype_arg.unwrap_or(if t.dtype.is_float() {
                    t.dtype
                } else {
                    DType::Int64
                }),
                "mean" => {
                    let d = dtype_arg.unwrap_or(t.dtype);
                    if !d.is_float() {
                        return Err(RuntimeError::DType(format!(
                            "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: {}",
                            d.scalar_type_name()
                        )));
                    }
                    d
                }
                "argmax" | "argmin" => DType::Int64,
                "all" | "any" => DType::Bool,
                "var" | "std" | "norm" | "logsumexp" => float_of(t.dtype),
                _ => t.dtype,
            };
            if s.returns.len() == 2 {
                return Ok(vec![
                    TypeInfo::Tensor(TensorInfo { dtype: dt, rank }),
                    TypeInfo::Tensor(TensorInfo {
                        dtype: DType::Int64,
                        rank,
                    }),
                ]);
            }
            tensor(dt, rank)
        }
        OpKind::Scan => {
            let t = need_t0()?;
            if let Some(d) = known_int(args.get(1)) {
                wrap_dim(d, t.rank)?;
            }
            let dt = match name {
                "softmax" | "log_softmax" => dtype_arg.unwrap_or(float_of(t.dtype)),
                _ => dtype_arg.unwrap_or(if t.dtype.is_float() {
                    t.dtype
                } else {
                    DType::Int64
                }),
            };
            tensor(dt, t.rank)
        }
        OpKind::LinearAlgebra => {
            let a = need_t0()?;
            let b = args
                .get(1)
                .and_then(info_tensor)
                .ok_or_else(|| infer_error(id, "second argument is not a tensor"))?;
            let dt = promote(a.dtype, b.dtype);
            let rank = match name {
                "matmul" => match (a.rank, b.rank) {
                    (0, _) | (_, 0) => {
                        return Err(RuntimeError::Shape(
                            "both arguments to matmul need to be at least 1D".into(),
                        ));
                    }
                    (1, 1) => 0,
                    (1, r) => r - 1,
                    (r, 1) => r - 1,
                    (x, y) => x.max(y),
                },
                "mm" => 2,
                "bmm" => 3,
                "mv" => 1,
                "dot" => 0,
                "outer" => 2,
                "linear" => a.rank.max(1) + (b.rank == 2) as usize - 1,
                _ => a.rank,
            };
            tensor(dt, rank)
        }
        OpKind::Shape => {
            match name {
                "size" if s.overload.is_empty() => return Ok(vec![TypeInfo::IntList]),
                "size" | "dim" | "numel" => return Ok(vec![TypeInfo::Int]),
                _ => {}
            }
            if name == "cat" || name == "stack" {
                let (dt, rank) = match args.first() {
                    Some(ArgInfo::TensorList(Some(v))) if !v.is_empty() => (
                        v.iter().map(|t| t.dtype).fold(DType::Bool, promote),
                        v.iter().map(|t| t.rank).max().unwrap_or(0),
                    ),
                    Some(ArgInfo::Known(Value::TensorList(v))) if !v.is_empty() => (
                        v.iter().map(|t| t.dtype()).fold(DType::Bool, promote),
                        v.iter().map(|t| t.dim()).max().unwrap_or(0),
                    ),
                    _ => return Err(infer_error(id, "unknown tensor list")),
                };
                return tensor(dt, if name == "stack" { rank + 1 } else { rank });
            }
            let t = need_t0()?;
            let rank = match name {
                "reshape" | "view" | "expand" => {
                    list_len(args.get(1)).ok_or_else(|| infer_error(id, "unknown size length"))?
                }
                "repeat" => list_len(args.get(1))
                    .ok_or_else(|| infer_error(id, "unknown size length"))?
                    .max(t.rank),
                "flatten" => {
                    let (Some(a), Some(b)) = (known_int(args.get(1)), known_int(args.get(2)))
                    else {
                        return Err(infer_error(id, "unknown dims"));
                    };
                    if t.rank == 0 {
                        1
                    } else {
                        let a = wrap_dim(a, t.rank)?;
                        let b = wrap_dim(b, t.rank)?;
                        t.rank - (b.saturating_sub(a))
                    }
                }
                "squeeze" if s.overload.is_empty() => {
                    return Err(infer_error(id, "squeeze() rank depends on the shape"));
                }
                "squeeze" => {
                    return Err(infer_error(
                        id,
                        "squeeze(dim) rank depends on whether that dim has size 1",
                    ));
                }
                "unsqueeze" => t.rank + 1,
                "expand_as" => {
                    info_tensor(&args[1])
                        .ok_or_else(|| infer_error(id, "other is not a tensor"))?
                        .rank
                }
                "split" | "chunk" => {
                    return Ok(vec![TypeInfo::TensorList(t, None)]);
                }
                _ => t.rank,
            };
            tensor(t.dtype, rank)
        }
        OpKind::Conversion => {
            let t = need_t0()?;
            match name {
                "item" => Ok(vec![match t.dtype.category() {
                    crate::dtype::Category::Bool => TypeInfo::Bool,
                    crate::dtype::Category::Int => TypeInfo::Int,
                    crate::dtype::Category::Float => TypeInfo::Float,
                }]),
                "Float" => Ok(vec![TypeInfo::Float]),
                "Int" => Ok(vec![TypeInfo::Int]),
                "Bool" => Ok(vec![TypeInfo::Bool]),
                "to" => tensor(
                    known_dtype(args.get(1)).ok_or_else(|| infer_error(id, "unknown dtype"))?,
                    t.rank,
                ),
                "float" => tensor(DType::Float32, t.rank),
                "double" => tensor(DType::Float64, t.rank),
                "long" => tensor(DType::Int64, t.rank),
                "int" => tensor(DType::Int32, t.rank),
                _ => tensor(DType::Bool, t.rank),
            }
        }
        OpKind::Indexing => {
            let t = need_t0()?;
            match name {
                "masked_select" => tensor(t.dtype, 1),
                "masked_fill" => {
                    let m = args
                        .get(1)
                        .and_then(info_tensor)
                        .map(|m| m.rank)
                        .unwrap_or(0);
                    tensor(t.dtype, t.rank.max(m))
                }
                "index" => match args.get(1) {
                    Some(ArgInfo::Known(Value::Indices(ix))) => {
                        let rank = crate::index::result_rank(t.rank, ix)?;
                        tensor(t.dtype, rank)
                    }
                    _ => Err(infer_error(id, "unknown indices")),
                },
                _ => tensor(t.dtype, t.rank),
            }
        }
        OpKind::InPlace => {
            let t = need_t0()?;
            tensor(t.dtype, t.rank)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_parses_and_names_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for sig in SIGNATURES {
            let s = parse_signature(sig).unwrap();
            assert!(seen.insert(s.qualified_name()), "duplicate {sig}");
        }
        assert_eq!(all().count(), SIGNATURES.len());
        for (name, ..) in OP_INFO {
            assert!(has_op(name), "OP_INFO names unknown op {name}");
        }
        // Every op states its spelling and kind (an op without a row would silently count as
        // an elementwise op nobody can spell); in-place ops are `InPlace` and methods.
        for (_, s) in all().filter(|(_, s)| !s.inplace) {
            assert!(
                OP_INFO.iter().any(|(n, ..)| *n == s.name),
                "{} has no OP_INFO row (spelling and kind)",
                s.signature
            );
        }
    }

    #[test]
    fn lookup_and_overloads() {
        let id = lookup("max.dim").unwrap();
        let s = schema(id);
        assert_eq!(s.name, "max");
        assert_eq!(s.returns.len(), 2);
        assert_eq!(s.returns[1].name.as_deref(), Some("indices"));
        assert_eq!(overloads("max").count(), 3);
        assert!(lookup("nope").is_none());
        assert_eq!(schema(lookup("add_.Tensor").unwrap()).kind, OpKind::InPlace);
        assert_eq!(numpy_function("arctan2"), Some("atan2"));
        assert_eq!(inplace_variant("add"), Some("add_"));
        assert!(schema(lookup("relu").unwrap()).spelling.functional);
    }

    #[test]
    fn resolution_picks_first_match() {
        let x = Value::Tensor(crate::Tensor::scalar(Scalar::Float(1.0)));
        let (id, args) = resolve("add", vec![x.clone(), Value::Int(2)], vec![]).unwrap();
        assert_eq!(id.to_string(), "add.Scalar");
        assert_eq!(args.len(), 3);
        let (id, _) = resolve("max", vec![x.clone(), Value::Int(0)], vec![]).unwrap();
        assert_eq!(id.to_string(), "max.dim");
        let (id, _) = resolve("max", vec![x.clone(), x.clone()], vec![]).unwrap();
        assert_eq!(id.to_string(), "max.other");
        let (id, args) = resolve(
            "sum",
            vec![x.clone()],
            vec![
                ("axis".into(), Value::Int(0)),
                ("keepdims".into(), Value::Bool(true)),
            ],
        )
        .unwrap();
        assert_eq!(id.to_string(), "sum.dim_IntList");
        assert!(matches!(args[1], Value::IntList(ref v) if v == &[0]));
        let (id, args) = resolve(
            "view",
            vec![x.clone(), Value::Int(2), Value::Int(3)],
            vec![],
        )
        .unwrap();
        assert_eq!(id.to_string(), "view");
        assert!(matches!(args[1], Value::IntList(ref v) if v == &[2, 3]));
        let e = resolve("relu", vec![Value::Int(1)], vec![]).unwrap_err();
        assert!(
            e.to_string().contains("expected a value of type 'Tensor'"),
            "{e}"
        );
        let e = resolve("add", vec![x.clone()], vec![]).unwrap_err();
        assert!(matches!(e, BindError::NoMatchingOverload { .. }));
    }

    #[test]
    fn operators() {
        let t = operator_target(PyOperator::Sub, OperatorForm::Reflected).unwrap();
        assert_eq!((t.name, t.swap), ("rsub", true));
        let t = operator_target(PyOperator::Cmp(CmpOp::Lt), OperatorForm::Reflected).unwrap();
        assert_eq!((t.name, t.swap), ("gt", true));
        assert_eq!(
            operator_target(PyOperator::Add, OperatorForm::InPlace)
                .unwrap()
                .name,
            "add_"
        );
        assert!(operator_target(PyOperator::MatMul, OperatorForm::InPlace).is_none());
        for op in [
            PyOperator::Add,
            PyOperator::Pow,
            PyOperator::Invert,
            PyOperator::MatMul,
        ] {
            let t = operator_target(op, OperatorForm::Forward).unwrap();
            assert!(has_op(t.name));
        }
    }

    #[test]
    fn inference() {
        let ti = |dtype, rank| ArgInfo::Tensor(TensorInfo { dtype, rank });
        let id = lookup("add.Scalar").unwrap();
        let r = infer(
            id,
            &bind(id, vec![ti(DType::Int64, 2), ArgInfo::Float], vec![]).unwrap(),
        )
        .unwrap();
        assert_eq!(
            r,
            vec![TypeInfo::Tensor(TensorInfo {
                dtype: DType::Float32,
                rank: 2
            })]
        );
        let id = lookup("div.Tensor").unwrap();
        let r = infer(id, &[ti(DType::Int64, 1), ti(DType::Int32, 3)]).unwrap();
        assert_eq!(
            r,
            vec![TypeInfo::Tensor(TensorInfo {
                dtype: DType::Float32,
                rank: 3
            })]
        );
        let id = lookup("max.dim").unwrap();
        let args = bind(
            id,
            vec![ti(DType::Float64, 3), ArgInfo::Known(Value::Int(-1))],
            vec![],
        )
        .unwrap();
        let r = infer(id, &args).unwrap();
        assert_eq!(r.len(), 2);
        assert_eq!(
            r[1],
            TypeInfo::Tensor(TensorInfo {
                dtype: DType::Int64,
                rank: 2
            })
        );
        let args = bind(
            id,
            vec![ti(DType::Float64, 3), ArgInfo::Known(Value::Int(3))],
            vec![],
        )
        .unwrap();
        assert!(matches!(
            infer(id, &args),
            Err(RuntimeError::DimOutOfRange { .. })
        ));
        let id = lookup("sum").unwrap();
        let r = infer(id, &[ti(DType::Bool, 2), ArgInfo::Known(Value::None)]).unwrap();
        assert_eq!(
            r,
            vec![TypeInfo::Tensor(TensorInfo {
                dtype: DType::Int64,
                rank: 0
            })]
        );
        let id = lookup("matmul").unwrap();
        let r = infer(id, &[ti(DType::Float32, 1), ti(DType::Float32, 3)]).unwrap();
        assert_eq!(
            r,
            vec![TypeInfo::Tensor(TensorInfo {
                dtype: DType::Float32,
                rank: 2
            })]
        );
    }
}
