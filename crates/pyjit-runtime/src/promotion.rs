//! PyTorch's `result_type`: promotion across dimensioned tensors, 0-d tensors and Python scalars.

use crate::dtype::{DEFAULT_FLOAT, DType, promote};
use crate::tensor::Tensor;
use crate::value::Scalar;

/// One participant of a promotion.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Operand {
    Tensor {
        dtype: DType,
        zero_dim: bool,
    },
    /// A Python scalar (PyTorch's "wrapped number").
    Scalar(Scalar),
}

impl Operand {
    pub fn of(t: &Tensor) -> Operand {
        Operand::Tensor {
            dtype: t.dtype(),
            zero_dim: t.dim() == 0,
        }
    }
}

fn promote_opt(a: Option<DType>, b: DType) -> Option<DType> {
    Some(match a {
        Some(a) => promote(a, b),
        None => b,
    })
}

/// `c10::combine_categories`: the higher-priority group wins unless the lower one is of a higher
/// category (bool < int < float), in which case they are promoted together.
fn combine_categories(higher: Option<DType>, lower: Option<DType>) -> Option<DType> {
    match (higher, lower) {
        (Some(h), _) if h.is_float() => Some(h),
        (Some(h), Some(l)) if h == DType::Bool || l.is_float() => Some(promote(h, l)),
        (Some(h), _) => Some(h),
        (None, l) => l,
    }
}

/// `torch.result_type` over the operands: dimensioned tensors have priority over 0-d tensors,
/// which have priority over Python scalars, except that a higher category (int over bool, float
/// over int) always lifts the result. A Python float counts as the default dtype (float32), a
/// Python int as int64. Returns `None` for no operands.
pub fn result_type(ops: &[Operand]) -> Option<DType> {
    let mut dim = None;
    let mut zero = None;
    let mut wrapped = None;
    for op in ops {
        match *op {
            Operand::Tensor {
                dtype,
                zero_dim: false,
            } => dim = promote_opt(dim, dtype),
            Operand::Tensor {
                dtype,
                zero_dim: true,
            } => zero = promote_opt(zero, dtype),
            Operand::Scalar(s) => {
                let d = match s {
                    Scalar::Bool(_) => DType::Bool,
                    Scalar::Int(_) => DType::Int64,
                    Scalar::Float(_) => DEFAULT_FLOAT,
                };
                wrapped = promote_opt(wrapped, d)
            }
        }
    }
    combine_categories(dim, combine_categories(zero, wrapped))
}

#[cfg(test)]
mod tests {
    use super::*;
    use DType::*;

    fn t(d: DType) -> Operand {
        Operand::Tensor {
            dtype: d,
            zero_dim: false,
        }
    }
    fn z(d: DType) -> Operand {
        Operand::Tensor {
            dtype: d,
            zero_dim: true,
        }
    }

    #[test]
    fn pytorch_promotion_table() {
        let f = Operand::Scalar(Scalar::Float(2.5));
        let i = Operand::Scalar(Scalar::Int(2));
        let b = Operand::Scalar(Scalar::Bool(true));
        assert_eq!(result_type(&[t(Float32), f]), Some(Float32));
        assert_eq!(result_type(&[t(Int64), f]), Some(Float32));
        assert_eq!(result_type(&[t(Int32), i]), Some(Int32));
        assert_eq!(result_type(&[t(Bool), i]), Some(Int64));
        assert_eq!(result_type(&[t(Bool), b]), Some(Bool));
        assert_eq!(result_type(&[t(Int32), z(Int64)]), Some(Int32));
        assert_eq!(result_type(&[t(Int32), z(Float64)]), Some(Float64));
        assert_eq!(result_type(&[t(Float32), z(Float64)]), Some(Float32));
        assert_eq!(result_type(&[z(Float64), f]), Some(Float64));
        assert_eq!(result_type(&[z(Int32), f]), Some(Float32));
        assert_eq!(result_type(&[t(Float32), t(Float64)]), Some(Float64));
        assert_eq!(result_type(&[t(Int64), t(Float32)]), Some(Float32));
        assert_eq!(result_type(&[z(Bool), i]), Some(Int64));
        assert_eq!(result_type(&[]), None);
    }
}
