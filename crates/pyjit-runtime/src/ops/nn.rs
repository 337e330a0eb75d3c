//! `torch.nn.functional` ops beyond activations: constant padding, dropout (evaluation mode),
//! binary cross entropy with logits.

use crate::dtype::DType;
use crate::error::{Result, RuntimeError};
use crate::ops::{self, BinaryOp, Input};
use crate::tensor::Tensor;
use crate::value::Scalar;

/// `F.pad(x, pad, mode="constant", value=0)`: `pad` holds (before, after) pairs starting from
/// the last dim; negative amounts remove elements. Other modes are not supported.
pub fn pad(t: &Tensor, pad: &[i64], mode: &str, value: Option<f64>) -> Result<Tensor> {
    if mode != "constant" {
        return Err(RuntimeError::NotImplemented(format!(
            "F.pad: mode '{mode}' is not supported (only mode='constant')"
        )));
    }
    if !pad.len().is_multiple_of(2) {
        return Err(RuntimeError::Value(
            "Padding length must be divisible by 2".into(),
        ));
    }
    if pad.len() / 2 > t.dim() {
        return Err(RuntimeError::Value(
            "Padding length should be less than or equal to two times the input dimension".into(),
        ));
    }
    let rank = t.dim();
    let mut shape: Vec<usize> = t.shape().to_vec();
    let mut src = t.clone();
    let mut offsets = vec![0usize; rank];
    for (k, pair) in pad.chunks(2).enumerate() {
        let d = rank - 1 - k;
        let (before, after) = (pair[0], pair[1]);
        let n = shape[d] as i64;
        let new = n + before + after;
        if new < 0 {
            return Err(RuntimeError::Value(format!(
                "The input size {n}, plus negative padding {before} and {after} resulted in a negative output size, which is invalid. Check dimension {d} of your input."
            )));
        }
        // negative padding crops the source
        let start = (-before).max(0);
        let stop = n - (-after).max(0);
        src = src.slice(d as i64, Some(start), Some(stop.max(start)), 1)?;
        offsets[d] = before.max(0) as usize;
        shape[d] = new as usize;
    }
    let fill = value.unwrap_or(0.0);
    let fill = if t.dtype().is_float() {
        Scalar::Float(fill)
    } else if t.dtype() == DType::Bool {
        Scalar::Bool(fill != 0.0)
    } else {
        Scalar::Int(fill as i64)
    };
    let out = Tensor::full(&shape, fill, t.dtype())?;
    let mut dst = out.clone();
    for (d, &o) in offsets.iter().enumerate() {
        let o = o as i64;
        dst = dst.slice(d as i64, Some(o), Some(o + src.shape()[d] as i64), 1)?;
    }
    dst.copy_(&src)?;
    Ok(out)
}

/// `F.dropout(x, p, training)`: the identity in evaluation mode. Training mode draws random
/// numbers, which pyjit does not (no generator whose stream matches PyTorch's).
pub fn dropout(t: &Tensor, p: f64, training: bool) -> Result<Tensor> {
    if !(0.0..=1.0).contains(&p) {
        return Err(RuntimeError::ValueError(format!(
            "dropout probability has to be between 0 and 1, but got {p}"
        )));
    }
    if !training || p == 0.0 {
        return Ok(t.clone());
    }
    Err(RuntimeError::NotImplemented(
        "F.dropout with training=True draws random numbers, which pyjit does not support; pass training=False (evaluation mode)".into(),
    ))
}

fn bin(op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor> {
    ops::binary(op, Input::T(a), Input::T(b))
}

fn bin_s(op: BinaryOp, a: &Tensor, s: f64) -> Result<Tensor> {
    ops::binary(op, Input::T(a), Input::S(Scalar::Float(s)))
}

/// `F.binary_cross_entropy_with_logits(input, target, weight, reduction=, pos_weight=)`:
/// `(1 - t) * x + w_p * (log1p(exp(-|x|)) + max(-x, 0))` with `w_p = 1 + (pos_weight - 1) * t`,
/// times `weight`, then reduced (`"none"`, `"mean"`, `"sum"`).
pub fn binary_cross_entropy_with_logits(
    input: &Tensor,
    target: &Tensor,
    weight: Option<&Tensor>,
    pos_weight: Option<&Tensor>,
    reduction: &str,
) -> Result<Tensor> {
    if input.shape() != target.shape() {
        return Err(RuntimeError::Value(format!(
            "Target size ({}) must be the same as input size ({})",
            crate::tensor::fmt_list(target.shape()),
            crate::tensor::fmt_list(input.shape())
        )));
    }
    if !matches!(reduction, "none" | "mean" | "sum") {
        return Err(RuntimeError::ValueError(format!(
            "{reduction} is not a valid value for reduction"
        )));
    }
    let one_minus_t = ops::rsub_scalar(target, Scalar::Float(1.0))?;
    let lin = bin(BinaryOp::Mul, &one_minus_t, input)?;
    let abs = ops::abs(input)?;
    let neg_abs = ops::neg(&abs)?;
    let softplus = ops::log1p(&ops::exp(&neg_abs)?)?;
    let neg_x = ops::neg(input)?;
    let relu_neg = ops::relu(&neg_x)?;
    let log_term = bin(BinaryOp::Add, &softplus, &relu_neg)?;
    let log_term = match pos_weight {
        Some(pw) => {
            let pw_m1 = bin_s(BinaryOp::Sub, pw, 1.0)?;
            let lw = bin_s(BinaryOp::Add, &bin(BinaryOp::Mul, &pw_m1, target)?, 1.0)?;
            bin(BinaryOp::Mul, &lw, &log_term)?
        }
        None => log_term,
    };
    let mut loss = bin(BinaryOp::Add, &lin, &log_term)?;
    if let Some(w) = weight {
        loss = bin(BinaryOp::Mul, &loss, w)?;
    }
    match reduction {
        "mean" => ops::mean(&loss, None, false, None),
        "sum" => ops::sum(&loss, None, false, None),
        _ => Ok(loss),
    }
}
