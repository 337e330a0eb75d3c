//! Ops that rearrange data: cat/stack/split/chunk/flip/repeat (views live on `Tensor`).

use crate::dtype::promote;
use crate::error::{Result, RuntimeError};
use crate::tensor::{Tensor, check_alloc, fmt_list, wrap_dim};
use crate::with_dtype;

/// `torch.cat(tensors, dim)`: dtypes promote; legacy 1-d empty tensors are skipped.
pub fn cat(tensors: &[Tensor], dim: i64) -> Result<Tensor> {
    if tensors.is_empty() {
        return Err(RuntimeError::Value(
            "torch.cat(): expected a non-empty list of Tensors".into(),
        ));
    }
    let dtype = tensors
        .iter()
        .map(Tensor::dtype)
        .fold(tensors[0].dtype(), promote);
    let parts: Vec<&Tensor> = tensors
        .iter()
        .filter(|t| !(t.dim() == 1 && t.numel() == 0))
        .collect();
    let Some(first) = parts.first() else {
        return Tensor::zeros(&[0], dtype);
    };
    if first.dim() == 0 {
        return Err(RuntimeError::Shape(
            "zero-dimensional tensor (at position 0) cannot be concatenated".into(),
        ));
    }
    let d = wrap_dim(dim, first.dim())?;
    let mut total = 0usize;
    for (i, t) in parts.iter().enumerate() {
        if t.dim() != first.dim() {
            return Err(RuntimeError::Shape(format!(
                "Tensors must have same number of dimensions: got {} and {}",
                first.dim(),
                t.dim()
            )));
        }
        for k in 0..t.dim() {
            if k != d && t.shape()[k] != first.shape()[k] {
                return Err(RuntimeError::Shape(format!(
                    "Sizes of tensors must match except in dimension {d}. Expected size {} but got size {} for tensor number {i} in the list.",
                    first.shape()[k],
                    t.shape()[k]
                )));
            }
        }
        total = total
            .checked_add(t.shape()[d])
            .ok_or(RuntimeError::AllocationTooLarge { bytes: u128::MAX })?;
    }
    let mut shape = first.shape().to_vec();
    shape[d] = total;
    check_alloc(&shape, dtype)?;
    let out = Tensor::zeros(&shape, dtype)?;
    let mut at = 0i64;
    for t in parts {
        let n = t.shape()[d] as i64;
        out.slice(d as i64, Some(at), Some(at + n), 1)?.copy_(t)?;
        at += n;
    }
    Ok(out)
}

/// `torch.stack(tensors, dim)`: all shapes equal; inserts a new dim.
pub fn stack(tensors: &[Tensor], dim: i64) -> Result<Tensor> {
    let Some(first) = tensors.first() else {
        return Err(RuntimeError::Value(
            "stack expects a non-empty TensorList".into(),
        ));
    };
    for (i, t) in tensors.iter().enumerate() {
        if t.shape() != first.shape() {
            return Err(RuntimeError::Shape(format!(
                "stack expects each tensor to be equal size, but got [{}] at entry 0 and [{}] at entry {i}",
                fmt_list(first.shape()),
                fmt_list(t.shape())
            )));
        }
    }
    let d = wrap_dim(dim, first.dim() + 1)? as i64;
    let parts = tensors
        .iter()
        .map(|t| t.unsqueeze(d))
        .collect::<Result<Vec<_>>>()?;
    if first.numel() == 0 || first.dim() == 0 {
        // `cat` skips 1-d empties and rejects 0-d; stacking them is still well defined.
        let mut shape = first.shape().to_vec();
        shape.insert(d as usize, tensors.len());
        let dtype = tensors
            .iter()
            .map(Tensor::dtype)
            .fold(first.dtype(), promote);
        let out = Tensor::zeros(&shape, dtype)?;
        for (i, t) in tensors.iter().enumerate() {
            out.select(d, i as i64)?.copy_(t)?;
        }
        return Ok(out);
    }
    cat(&parts, d)
}

/// `split(x, split_size, dim)`: views of `split_size` (the last may be smaller).
pub fn split(t: &Tensor, split_size: i64, dim: i64) -> Result<Vec<Tensor>> {
    if t.dim() == 0 {
        return Err(RuntimeError::Shape(
            "split expects at least a 1-dimensional tensor".into(),
        ));
    }
    let d = wrap_dim(dim, t.dim())?;
    let n = t.shape()[d] as i64;
    if split_size < 0 || (split_size == 0 && n != 0) {
        return Err(RuntimeError::Value(format!(
            "split_size can only be 0 if dimension size is 0, but got dimension size of {n}"
        )));
    }
    if n == 0 {
        return Ok(vec![t.clone()]);
    }
    let mut out = Vec::new();
    let mut at = 0;
    while at < n {
        let end = at.saturating_add(split_size).min(n);
        out.push(t.slice(d as i64, Some(at), Some(end), 1)?);
        at = end;
    }
    Ok(out)
}

/// `split(x, [sizes], dim)`: the sizes must add up to the dim's size.
pub fn split_sizes(t: &Tensor, sizes: &[i64], dim: i64) -> Result<Vec<Tensor>> {
    if t.dim() == 0 {
        return Err(RuntimeError::Shape(
            "split expects at least a 1-dimensional tensor".into(),
        ));
    }
    let d = wrap_dim(dim, t.dim())?;
    let n = t.shape()[d] as i64;
    let total: i64 = sizes
        .iter()
        .try_fold(0i64, |a, &s| if s < 0 { None } else { a.checked_add(s) })
        .unwrap_or(-1);
    if total != n {
        return Err(RuntimeError::Value(format!(
            "split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size at dimension {dim}), but got split_sizes=[{}]",
            fmt_list(sizes)
        )));
    }
    let mut out = Vec::new();
    let mut at = 0;
    for &s in sizes {
        out.push(t.slice(d as i64, Some(at), Some(at + s), 1)?);
        at += s;
    }
    Ok(out)
}

/// `chunk(x, chunks, dim)`: `split` with size `ceil(n / chunks)`.
pub fn chunk(t: &Tensor, chunks: i64, dim: i64) -> Result<Vec<Tensor>> {
    if chunks <= 0 {
        return Err(RuntimeError::Value(format!(
            "chunk expects `chunks` to be greater than 0, got: {chunks}"
        )));
    }
    if t.dim() == 0 {
        return Err(RuntimeError::Shape(
            "chunk expects at least a 1-dimensional tensor".into(),
        ));
    }
    let d = wrap_dim(dim, t.dim())?;
    let n = t.shape()[d] as i64;
    let size = (n as u64).div_ceil(chunks as u64) as i64;
    if size == 0 {
        return Ok(vec![t.clone()]);
    }
    split(t, size, dim)
}

/// `flip(x, dims)`: a reversed copy.
pub fn flip(t: &Tensor, dims: &[i64]) -> Result<Tensor> {
    let mut mask = vec![false; t.dim()];
    for &d in dims {
        let w = wrap_dim(d, t.dim())?;
        if t.dim() > 0 {
            if mask[w] {
                return Err(RuntimeError::Value(format!(
                    "dims has duplicates, original flip dims size={}, but unique flip dims size={}",
                    dims.len(),
                    dims.len() - 1
                )));
            }
            mask[w] = true;
        }
    }
    check_alloc(t.shape(), t.dtype())?;
    with_dtype!(t.dtype(), T => {
        let mut a = t.to_array::<T>();
        for (i, &m) in mask.iter().enumerate() {
            if m {
                a.invert_axis(ndarray::Axis(i));
            }
        }
        Ok(Tensor::from_array(a))
    })
}

/// `x.repeat(reps)`: tiles the tensor (`len(reps)` ≥ rank; leading dims are added).
pub fn repeat(t: &Tensor, reps: &[i64]) -> Result<Tensor> {
    if reps.len() < t.dim() {
        return Err(RuntimeError::Value(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor".into(),
        ));
    }
    if let Some(&r) = reps.iter().find(|&&r| r < 0) {
        return Err(RuntimeError::Value(format!(
            "Trying to create tensor with negative dimension {r}: [{}]",
            fmt_list(reps)
        )));
    }
    let lead = reps.len() - t.dim();
    let mut padded = vec![1usize; lead];
    padded.extend_from_slice(t.shape());
    let mut out_shape = Vec::with_capacity(reps.len());
    // View as [1, s0, 1, s1, …], expand to [r0, s0, r1, s1, …], then collapse pairs.
    let mut inter = Vec::with_capacity(2 * reps.len());
    let mut expand_to = Vec::with_capacity(2 * reps.len());
    for (i, &r) in reps.iter().enumerate() {
        let s = padded[i];
        out_shape.push(
            s.checked_mul(r as usize)
                .ok_or(RuntimeError::AllocationTooLarge { bytes: u128::MAX })?,
        );
        inter.extend([1i64, s as i64]);
        expand_to.extend([r, s as i64]);
    }
    check_alloc(&out_shape, t.dtype())?;
    let v = t.reshape(&inter)?.expand(&expand_to)?;
    let c = v.clone_data()?;
    c.reshape(&out_shape.iter().map(|&d| d as i64).collect::<Vec<_>>())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ar(n: i64, shape: &[usize]) -> Tensor {
        Tensor::from_vec((0..n).collect(), shape).unwrap()
    }

    #[test]
    fn cat_stack_split_chunk() {
        let a = ar(6, &[2, 3]);
        let c = cat(&[a.clone(), a.clone()], 1).unwrap();
        assert_eq!(c.shape(), &[2, 6]);
        assert_eq!(c.to_vec::<i64>(), vec![0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5]);
        let e = cat(&[a.clone(), ar(6, &[3, 2])], 0).unwrap_err();
        assert_eq!(
            e.to_string(),
            "Sizes of tensors must match except in dimension 0. Expected size 3 but got size 2 for tensor number 1 in the list."
        );
        let f = Tensor::from_slice(&[1.5f32, 2.5, 3.5]);
        let mixed = cat(&[a.select(0, 0).unwrap(), f], 0).unwrap();
        assert_eq!(mixed.dtype(), crate::DType::Float32);
        let s = stack(&[a.clone(), a.clone()], -1).unwrap();
        assert_eq!(s.shape(), &[2, 3, 2]);
        let parts = split(&ar(5, &[5]), 2, 0).unwrap();
        assert_eq!(
            parts.iter().map(|p| p.numel()).collect::<Vec<_>>(),
            vec![2, 2, 1]
        );
        let ch = chunk(&ar(6, &[6]), 4, 0).unwrap();
        assert_eq!(ch.len(), 3);
    }

    #[test]
    fn flip_and_repeat() {
        let a = ar(6, &[2, 3]);
        assert_eq!(
            flip(&a, &[0, 1]).unwrap().to_vec::<i64>(),
            vec![5, 4, 3, 2, 1, 0]
        );
        let r = repeat(&ar(2, &[2]), &[2, 2]).unwrap();
        assert_eq!(r.shape(), &[2, 4]);
        assert_eq!(r.to_vec::<i64>(), vec![0, 1, 0, 1, 0, 1, 0, 1]);
    }
}
