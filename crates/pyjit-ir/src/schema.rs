//! The IR's view of the runtime's op-schema table (PLACEHOLDER until the runtime's schema lands).

use crate::Type;

/// PLACEHOLDER copy of the runtime's dtype until it is exported.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    Bool,
    Int32,
    Int64,
    Float32,
    Float64,
}

impl DType {
    pub const ALL: [DType; 5] = [DType::Bool, DType::Int32, DType::Int64, DType::Float32, DType::Float64];
    pub fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::Int32 => "int32",
            DType::Int64 => "int64",
            DType::Float32 => "float32",
            DType::Float64 => "float64",
        }
    }
}

/// Index of an op in the schema table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OpId(pub u16);

#[derive(Clone, Debug, PartialEq)]
pub enum ArgType {
    Tensor,
    Scalar,
    Int,
    Bool,
}

impl std::fmt::Display for ArgType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{self:?}")
    }
}

struct Entry {
    name: &'static str,
    params: &'static [ArgType],
    returns: usize,
}

const TABLE: &[Entry] = &[
    Entry { name: "add.Tensor", params: &[ArgType::Tensor, ArgType::Tensor], returns: 1 },
    Entry { name: "add.Scalar", params: &[ArgType::Tensor, ArgType::Scalar], returns: 1 },
    Entry { name: "mul.Tensor", params: &[ArgType::Tensor, ArgType::Tensor], returns: 1 },
    Entry { name: "mul.Scalar", params: &[ArgType::Tensor, ArgType::Scalar], returns: 1 },
    Entry { name: "sum", params: &[ArgType::Tensor], returns: 1 },
    Entry { name: "gt.Scalar", params: &[ArgType::Tensor, ArgType::Scalar], returns: 1 },
    Entry { name: "max.dim", params: &[ArgType::Tensor, ArgType::Int, ArgType::Bool], returns: 2 },
    Entry { name: "add_.Tensor", params: &[ArgType::Tensor, ArgType::Tensor], returns: 1 },
    Entry { name: "Bool.Tensor", params: &[ArgType::Tensor], returns: 0 },
];

pub fn op_name(id: OpId) -> String {
    TABLE.get(id.0 as usize).map(|e| e.name).unwrap_or("?").to_string()
}

pub(crate) fn lookup_op(name: &str) -> Option<OpId> {
    TABLE.iter().position(|e| e.name == name).map(|i| OpId(i as u16))
}

pub fn is_inplace(id: OpId) -> bool {
    op_name(id).contains('_')
}

pub fn returns_mutable(id: OpId) -> bool {
    !op_name(id).starts_with("Bool")
}

pub fn accepts(param: &ArgType, got: &Type) -> bool {
    match param {
        ArgType::Tensor => got.is_tensor(),
        ArgType::Scalar => got.is_scalar(),
        ArgType::Int => *got == Type::Int,
        ArgType::Bool => *got == Type::Bool,
    }
}

pub fn return_types(id: OpId) -> Vec<Type> {
    signature(id).map(|(_, r)| r).unwrap_or_default()
}

pub(crate) fn signature(id: OpId) -> Option<(Vec<ArgType>, Vec<Type>)> {
    let e = TABLE.get(id.0 as usize)?;
    let rets = if e.returns == 0 { vec![Type::Bool] } else { vec![Type::tensor(); e.returns] };
    Some((e.params.to_vec(), rets))
}
