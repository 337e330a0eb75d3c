//! Subscripts (`x[...]`), index assignment (`x[...] = v`), gather/index_select/masked ops.
//!
//! Basic components (ints, slices, `None`, `...`) produce views, as in PyTorch. Tensor components
//! (bool masks, integer index tensors) are "advanced": the result is a copy whose advanced dims
//! (the broadcast shape of the index tensors) replace the indexed dims in place when those are
//! adjacent, or go first otherwise (NumPy's rule, which PyTorch follows). Assignment computes the
//! storage position of every selected element and writes there, so it is visible through every
//! view of the storage.

use crate::dtype::DType;
use crate::element::Element;
use crate::error::{Result, RuntimeError};
use crate::ops::{broadcast_all, map_ternary};
use crate::tensor::{Tensor, check_alloc, fmt_list, offsets_into, wrap_dim};
use crate::value::{Scalar, TensorIndex};
use crate::with_dtype;

/// The result of applying the basic components: a view plus the advanced indices (as int64
/// index tensors) and the view dims they index.
struct Basic {
    view: Tensor,
    advanced: Vec<(usize, Tensor)>,
}

fn dims_consumed(ix: &TensorIndex) -> usize {
    match ix {
        TensorIndex::Int(_) | TensorIndex::Slice { .. } => 1,
        TensorIndex::Tensor(t) if t.dtype() == DType::Bool => t.dim(),
        TensorIndex::Tensor(_) => 1,
        TensorIndex::None | TensorIndex::Ellipsis => 0,
    }
}

/// `torch.nonzero(mask)` as one int64 index tensor per mask dim.
fn nonzero_columns(mask: &Tensor) -> Result<Vec<Tensor>> {
    let k = mask.dim();
    check_alloc(mask.shape(), DType::Int64)?;
    let bits = mask.to_vec::<bool>();
    let mut cols: Vec<Vec<i64>> = vec![Vec::new(); k];
    for (lin, &b) in bits.iter().enumerate() {
        if b {
            let mut rem = lin;
            for d in (0..k).rev() {
                let n = mask.shape()[d].max(1);
                cols[d].push((rem % n) as i64);
                rem /= n;
            }
        }
    }
    Ok(cols.into_iter().map(|c| Tensor::from_slice(&c)).collect())
}

fn apply_basic(t: &Tensor, indices: &[TensorIndex]) -> Result<Basic> {
    let rank = t.dim();
    let ellipses = indices
        .iter()
        .filter(|i| matches!(i, TensorIndex::Ellipsis))
        .count();
    if ellipses > 1 {
        return Err(RuntimeError::Index(
            "an index can only have a single ellipsis ('...')".into(),
        ));
    }
    let consumed: usize = indices.iter().map(dims_consumed).sum();
    if consumed > rank {
        return Err(RuntimeError::Index(format!(
            "too many indices for tensor of dimension {rank}"
        )));
    }
    let mut cur = t.clone();
    let mut d = 0usize;
    let mut advanced = Vec::new();
    for (position, ix) in indices.iter().enumerate() {
        match ix {
            TensorIndex::Int(i) => {
                // PyTorch's out-of-range error names the integer's position in the index tuple
                // (its `real_dim`), not the dim of the partly indexed tensor: `x[1, 4]` of a 3x4
                // tensor is "dimension 1", `x[..., 9]` of a 2x3x4 one "dimension 1" too.
                cur = cur.select(d as i64, *i).map_err(|e| match e {
                    RuntimeError::IndexOutOfRange { index, size, .. } => {
                        RuntimeError::IndexOutOfRange {
                            index,
                            dim: position,
                            size,
                        }
                    }
                    e => e,
                })?;
            }
            TensorIndex::Slice { start, stop, step } => {
                cur = cur.slice(d as i64, *start, *stop, *step)?;
                d += 1;
            }
            TensorIndex::None => {
                cur = cur.unsqueeze(d as i64)?;
                d += 1;
            }
            TensorIndex::Ellipsis => {
                d += rank - consumed;
            }
            TensorIndex::Tensor(ti) => {
                if ti.dtype() == DType::Bool {
                    if ti.dim() == 0 {
                        cur = cur.unsqueeze(d as i64)?;
                        if !ti.item()?.to_bool() {
                            cur = cur.slice(d as i64, Some(0), Some(0), 1)?;
                        }
                        d += 1;
                        continue;
                    }
                    for j in 0..ti.dim() {
                        if cur.shape().get(d + j) != Some(&ti.shape()[j]) {
                            return Err(RuntimeError::Index(format!(
                                "The shape of the mask [{}] at index {j} does not match the shape of the indexed tensor [{}] at index {}",
                                fmt_list(ti.shape()),
                                fmt_list(cur.shape()),
                                d + j
                            )));
                        }
                    }
                    for (j, col) in nonzero_columns(ti)?.into_iter().enumerate() {
                        advanced.push((d + j, col));
                    }
                    d += ti.dim();
                } else if ti.dtype().is_int() {
                    advanced.push((d, ti.to_dtype(DType::Int64)?));
                    d += 1;
                } else {
                    return Err(RuntimeError::Index(
                        "tensors used as indices must be long, int, byte or bool tensors".into(),
                    ));
                }
            }
        }
    }
    Ok(Basic {
        view: cur,
        advanced,
    })
}

/// Where advanced indexing reads/writes: the result shape and each element's storage position.
struct Plan {
    shape: Vec<usize>,
    offsets: Vec<usize>,
}

fn plan_advanced(view: &Tensor, advanced: &[(usize, Tensor)]) -> Result<Plan> {
    let shapes: Vec<&[usize]> = advanced.iter().map(|(_, t)| t.shape()).collect();
    let b_shape = broadcast_all(&shapes).map_err(|_| {
        RuntimeError::Index(format!(
            "shape mismatch: indexing tensors could not be broadcast together with shapes {}",
            shapes
                .iter()
                .map(|s| format!("[{}]", fmt_list(s)))
                .collect::<Vec<_>>()
                .join(", ")
        ))
    })?;
    let positions: Vec<usize> = advanced.iter().map(|(p, _)| *p).collect();
    let consecutive = positions.windows(2).all(|w| w[1] == w[0] + 1);
    // Index values, broadcast to the common shape, bounds-checked and wrapped.
    let nb = check_alloc(&b_shape, DType::Int64)?;
    let mut base = vec![0usize; nb];
    for (p, idx) in advanced {
        let size = view.shape()[*p];
        let vals = idx.broadcast_to(&b_shape)?.to_vec::<i64>();
        let stride = view.strides()[*p];
        for (slot, &v) in base.iter_mut().zip(&vals) {
            let n = size as i64;
            if v < -n || v >= n {
                return Err(RuntimeError::IndexOutOfRange {
                    index: v,
                    dim: *p,
                    size,
                });
            }
            let w = if v < 0 { v + n } else { v } as usize;
            *slot += w * stride;
        }
    }
    let rest: Vec<usize> = (0..view.dim()).filter(|d| !positions.contains(d)).collect();
    let sub_offsets = |dims: &[usize]| -> Vec<usize> {
        let sh: Vec<usize> = dims.iter().map(|&d| view.shape()[d]).collect();
        let st: Vec<usize> = dims.iter().map(|&d| view.strides()[d]).collect();
        let mut out = Vec::new();
        offsets_into(&sh, &st, 0, &mut out);
        out
    };
    let (shape, groups): (Vec<usize>, [Vec<usize>; 3]) = if consecutive {
        let p0 = positions[0];
        let pre: Vec<usize> = rest.iter().copied().filter(|&d| d < p0).collect();
        let post: Vec<usize> = rest.iter().copied().filter(|&d| d > p0).collect();
        let mut shape: Vec<usize> = pre.iter().map(|&d| view.shape()[d]).collect();
        shape.extend(&b_shape);
        shape.extend(post.iter().map(|&d| view.shape()[d]));
        (shape, [sub_offsets(&pre), base, sub_offsets(&post)])
    } else {
        let mut shape = b_shape.clone();
        shape.extend(rest.iter().map(|&d| view.shape()[d]));
        (shape, [vec![0], base, sub_offsets(&rest)])
    };
    let n = check_alloc(&shape, DType::Int64)?;
    let mut offsets = Vec::with_capacity(n);
    if n > 0 {
        for &a in &groups[0] {
            for &b in &groups[1] {
                for &c in &groups[2] {
                    offsets.push(view.storage_offset() + a + b + c);
                }
            }
        }
    }
    Ok(Plan { shape, offsets })
}

/// `x[indices]`: a view for basic indexing, a copy when a tensor index is involved.
pub fn index(t: &Tensor, indices: &[TensorIndex]) -> Result<Tensor> {
    let Basic { view, advanced } = apply_basic(t, indices)?;
    if advanced.is_empty() {
        return Ok(view);
    }
    let plan = plan_advanced(&view, &advanced)?;
    check_alloc(&plan.shape, t.dtype())?;
    with_dtype!(t.dtype(), T => {
        let vals = view.read_offsets::<T>(&plan.offsets)?;
        Tensor::from_vec(vals, &plan.shape)
    })
}

/// `x[indices] = values`: writes `values` (broadcast to the indexed shape, converted to `x`'s
/// dtype) into `x`'s storage. Returns `x`.
pub fn index_put_(t: &Tensor, indices: &[TensorIndex], values: &Tensor) -> Result<Tensor> {
    let Basic { view, advanced } = apply_basic(t, indices)?;
    if advanced.is_empty() {
        // Python's setitem broadcasts the value first, then copies (so `x[:] = x[0]` runs
        // while `x[1:] = x[:-1]` is refused, as in PyTorch).
        let src = values.broadcast_to(view.shape())?;
        view.assert_no_partial_overlap(&src)?;
        view.copy_(&src)?;
        return Ok(t.clone());
    }
    t.assert_no_internal_overlap()?;
    t.assert_no_overlap(values)?;
    if values.dtype() != t.dtype() {
        return Err(RuntimeError::DType(format!(
            "Index put requires the source and destination dtypes match, got {} for the destination and {} for the source.",
            t.dtype().scalar_type_name(),
            values.dtype().scalar_type_name()
        )));
    }
    let plan = plan_advanced(&view, &advanced)?;
    let src = values.broadcast_to(&plan.shape).map_err(|_| {
        RuntimeError::Shape(format!(
            "shape mismatch: value tensor of shape [{}] cannot be broadcast to indexing result of shape [{}]",
            fmt_list(values.shape()),
            fmt_list(&plan.shape)
        ))
    })?;
    with_dtype!(t.dtype(), T => {
        let vals = src.to_vec::<T>();
        t.write_offsets::<T>(&plan.offsets, &vals)?;
    });
    Ok(t.clone())
}

/// `x[indices] = scalar`.
pub fn index_put_scalar_(t: &Tensor, indices: &[TensorIndex], value: Scalar) -> Result<Tensor> {
    index_put_(t, indices, &Tensor::scalar_typed(value, t.dtype()))
}

/// Rank of `x[indices]` for a tensor of rank `rank` (used by shape inference).
pub fn result_rank(rank: usize, indices: &[TensorIndex]) -> Result<usize> {
    let consumed: usize = indices.iter().map(dims_consumed).sum();
    if consumed > rank {
        return Err(RuntimeError::Index(format!(
            "too many indices for tensor of dimension {rank}"
        )));
    }
    let mut out = rank - consumed;
    let mut adv_rank = None::<usize>;
    for ix in indices {
        match ix {
            TensorIndex::Slice { .. } => out += 1,
            TensorIndex::None => out += 1,
            TensorIndex::Tensor(t) if t.dtype() == DType::Bool && t.dim() == 0 => out += 1,
            TensorIndex::Tensor(t) => {
                let r = if t.dtype() == DType::Bool { 1 } else { t.dim() };
                adv_rank = Some(adv_rank.unwrap_or(0).max(r));
            }
            _ => {}
        }
    }
    Ok(out + adv_rank.unwrap_or(0))
}

/// `torch.index_select(x, dim, index)`.
pub fn index_select(t: &Tensor, dim: i64, idx: &Tensor) -> Result<Tensor> {
    if !idx.dtype().is_int() {
        return Err(RuntimeError::DType(
            "index_select(): Expected dtype int32 or int64 for index".into(),
        ));
    }
    if idx.dim() > 1 {
        return Err(RuntimeError::Index(
            "index_select(): Index is supposed to be a vector".into(),
        ));
    }
    let d = wrap_dim(dim, t.dim())?;
    let size = if t.dim() == 0 { 1 } else { t.shape()[d] } as i64;
    check_alloc(idx.shape(), DType::Int64)?;
    let vals = idx.to_vec::<i64>();
    if vals.iter().any(|&v| v < 0 || v >= size) {
        return Err(RuntimeError::Index("index out of range in self".into()));
    }
    if t.dim() == 0 {
        return t.clone_data();
    }
    let mut ix: Vec<TensorIndex> = (0..d).map(|_| TensorIndex::full()).collect();
    ix.push(TensorIndex::Tensor(idx.reshape(&[-1])?));
    index(t, &ix)
}

/// `torch.gather(x, dim, index)`: `out[i][j] = x[index[i][j]][j]` (for `dim = 0`).
pub fn gather(t: &Tensor, dim: i64, idx: &Tensor) -> Result<Tensor> {
    if !idx.dtype().is_int() {
        return Err(RuntimeError::DType(
            "gather(): Expected dtype int64 for index".into(),
        ));
    }
    let d = wrap_dim(dim, t.dim())?;
    if idx.dim() != t.dim() && !(idx.dim() <= 1 && t.dim() <= 1) {
        return Err(RuntimeError::Shape(
            "Index tensor must have the same number of dimensions as input tensor".into(),
        ));
    }
    if t.dim() == 0 {
        // PyTorch's gather does not wrap negative indices: only 0 fits a 0-d input.
        if let Some(&v) = idx.to_vec::<i64>().iter().find(|&&i| i != 0) {
            return Err(RuntimeError::Value(format!(
                "index {v} is out of bounds for dimension 0 with size 1"
            )));
        }
        return t
            .reshape(
                idx.shape()
                    .iter()
                    .map(|&n| n as i64)
                    .collect::<Vec<_>>()
                    .as_slice(),
            )
            .and_then(|r| r.clone_data());
    }
    for k in 0..t.dim() {
        if k != d && idx.shape()[k] > t.shape()[k] {
            return Err(RuntimeError::Shape(format!(
                "Size does not match at dimension {k} expected index [{}] to be smaller than self [{}] apart from dimension {d}",
                fmt_list(idx.shape()),
                fmt_list(t.shape())
            )));
        }
    }
    let vals = idx.to_vec::<i64>();
    let n = check_alloc(idx.shape(), t.dtype())?;
    let mut offsets = Vec::with_capacity(n);
    let size = t.shape()[d] as i64;
    for (lin, &v) in vals.iter().enumerate() {
        if v < 0 || v >= size {
            // gather raises this as a RuntimeError, not an IndexError, and (unlike indexing)
            // does not wrap negative indices.
            return Err(RuntimeError::Value(format!(
                "index {v} is out of bounds for dimension {d} with size {size}"
            )));
        }
        let w = v as usize;
        let mut rem = lin;
        let mut off = t.storage_offset();
        for k in (0..idx.dim()).rev() {
            let nk = idx.shape()[k].max(1);
            let i = rem % nk;
            rem /= nk;
            off += if k == d { w } else { i } * t.strides()[k];
        }
        offsets.push(off);
    }
    with_dtype!(t.dtype(), T => {
        let out = t.read_offsets::<T>(&offsets)?;
        Tensor::from_vec(out, idx.shape())
    })
}

fn check_mask(mask: &Tensor) -> Result<()> {
    if mask.dtype() != DType::Bool {
        return Err(RuntimeError::DType(format!(
            "masked_fill_ only supports boolean masks, but got mask with dtype {}",
            match mask.dtype() {
                DType::Int32 => "int",
                DType::Int64 => "long int",
                DType::Float32 => "float",
                DType::Float64 => "double",
                DType::Bool => "bool",
            }
        )));
    }
    Ok(())
}

fn fill_value(t: &Tensor, value: &Tensor) -> Result<Tensor> {
    if value.dim() != 0 {
        return Err(RuntimeError::Shape(format!(
            "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with {} dimension(s).",
            value.dim()
        )));
    }
    value.to_dtype(t.dtype())
}

/// `x.masked_fill(mask, value)` (value a 0-d tensor; see [`masked_fill_scalar`]).
pub fn masked_fill(t: &Tensor, mask: &Tensor, value: &Tensor) -> Result<Tensor> {
    check_mask(mask)?;
    let v = fill_value(t, value)?;
    with_dtype!(t.dtype(), T => map_ternary::<bool, T, T>(mask, &v, t, |m, a, b| if m { a } else { b }))
}

pub fn masked_fill_scalar(t: &Tensor, mask: &Tensor, value: Scalar) -> Result<Tensor> {
    masked_fill(t, mask, &Tensor::scalar_typed(value, t.dtype()))
}

/// `x.masked_fill_(mask, value)`: in place; the mask broadcasts to `x`.
pub fn masked_fill_(t: &Tensor, mask: &Tensor, value: &Tensor) -> Result<Tensor> {
    let r = masked_fill(t, mask, value)?;
    if r.shape() != t.shape() {
        return Err(RuntimeError::Shape(format!(
            "output with shape [{}] doesn't match the broadcast shape [{}]",
            fmt_list(t.shape()),
            fmt_list(r.shape())
        )));
    }
    t.copy_(&r)?;
    Ok(t.clone())
}

/// `torch.masked_select(x, mask)`: the selected elements as a 1-d tensor.
pub fn masked_select(t: &Tensor, mask: &Tensor) -> Result<Tensor> {
    if mask.dtype() != DType::Bool {
        return Err(RuntimeError::DType(
            "masked_select: expected BoolTensor for mask".into(),
        ));
    }
    let shape = crate::ops::broadcast_shapes(t.shape(), mask.shape())?;
    check_alloc(&shape, DType::Float64)?;
    let m = mask.broadcast_to(&shape)?.to_vec::<bool>();
    let tb = t.broadcast_to(&shape)?;
    with_dtype!(t.dtype(), T => {
        let v = tb.to_vec::<T>();
        let out: Vec<T> = v.into_iter().zip(m).filter(|(_, b)| *b).map(|(x, _)| x).collect();
        let n = out.len();
        Tensor::from_vec(out, &[n])
    })
}

/// Allows generic code to name the element conversion used by indexing.
#[allow(dead_code)]
fn _assert_element<T: Element>() {}

#[cfg(test)]
mod tests {
    use super::*;

    fn ar(n: i64, shape: &[usize]) -> Tensor {
        Tensor::from_vec((0..n).collect(), shape).unwrap()
    }
    fn sl(start: Option<i64>, stop: Option<i64>, step: i64) -> TensorIndex {
        TensorIndex::Slice { start, stop, step }
    }

    #[test]
    fn basic_indexing_is_a_view() {
        let x = ar(12, &[3, 4]);
        let r = index(&x, &[TensorIndex::Int(-1)]).unwrap();
        assert_eq!(r.to_vec::<i64>(), vec![8, 9, 10, 11]);
        assert!(r.shares_storage(&x));
        let r = index(&x, &[TensorIndex::full(), sl(Some(1), None, 2)]).unwrap();
        assert_eq!(r.shape(), &[3, 2]);
        assert_eq!(r.to_vec::<i64>(), vec![1, 3, 5, 7, 9, 11]);
        let r = index(&x, &[TensorIndex::Ellipsis, TensorIndex::None]).unwrap();
        assert_eq!(r.shape(), &[3, 4, 1]);
        let e = index(&x, &[TensorIndex::Int(5)]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "index 5 is out of bounds for dimension 0 with size 3"
        );
        assert!(
            index(
                &x,
                &[
                    TensorIndex::Int(0),
                    TensorIndex::Int(0),
                    TensorIndex::Int(0)
                ]
            )
            .is_err()
        );
        assert!(index(&x, &[sl(None, None, -1)]).is_err());
        // the position in the index tuple names the dim, as in PyTorch (checked eagerly)
        let msg = |t: &Tensor, ix: &[TensorIndex]| index(t, ix).unwrap_err().to_string();
        assert_eq!(
            msg(&x, &[TensorIndex::Int(1), TensorIndex::Int(4)]),
            "index 4 is out of bounds for dimension 1 with size 4"
        );
        let y = ar(24, &[2, 3, 4]);
        assert_eq!(
            msg(&y, &[TensorIndex::Ellipsis, TensorIndex::Int(9)]),
            "index 9 is out of bounds for dimension 1 with size 4"
        );
        assert_eq!(
            msg(
                &y,
                &[TensorIndex::None, TensorIndex::Int(0), TensorIndex::Int(5)]
            ),
            "index 5 is out of bounds for dimension 2 with size 3"
        );
    }

    #[test]
    fn advanced_indexing() {
        let x = ar(12, &[3, 4]);
        let m = crate::ops::gt_scalar(&x, Scalar::Int(8)).unwrap();
        let r = index(&x, &[TensorIndex::Tensor(m)]).unwrap();
        assert_eq!(r.to_vec::<i64>(), vec![9, 10, 11]);
        let i = Tensor::from_slice(&[2i64, 0]);
        let r = index(&x, &[TensorIndex::full(), TensorIndex::Tensor(i.clone())]).unwrap();
        assert_eq!(r.shape(), &[3, 2]);
        assert_eq!(r.to_vec::<i64>(), vec![2, 0, 6, 4, 10, 8]);
        let r = index(
            &x,
            &[
                TensorIndex::Tensor(i.clone()),
                TensorIndex::Tensor(Tensor::from_slice(&[1i64, 3])),
            ],
        )
        .unwrap();
        assert_eq!(r.to_vec::<i64>(), vec![9, 3]);
        let bad = Tensor::from_slice(&[true, false]);
        let e = index(&x, &[TensorIndex::Tensor(bad)]).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("The shape of the mask [2] at index 0"),
            "{e}"
        );
    }

    #[test]
    fn assignment_is_visible_through_views() {
        let x = ar(12, &[3, 4]).to_dtype(DType::Float32).unwrap();
        let row = index(&x, &[TensorIndex::Int(1)]).unwrap();
        index_put_scalar_(
            &x,
            &[TensorIndex::Int(1), sl(Some(1), Some(3), 1)],
            Scalar::Float(-1.0),
        )
        .unwrap();
        assert_eq!(row.to_vec::<f32>(), vec![4.0, -1.0, -1.0, 7.0]);
        let m = crate::ops::lt_scalar(&x, Scalar::Int(0)).unwrap();
        index_put_scalar_(&x, &[TensorIndex::Tensor(m)], Scalar::Int(100)).unwrap();
        assert_eq!(row.to_vec::<f32>(), vec![4.0, 100.0, 100.0, 7.0]);
        // value broadcasting over the selected rows
        let v = Tensor::from_slice(&[1.0f32, 2.0, 3.0, 4.0]);
        index_put_(
            &x,
            &[TensorIndex::Tensor(Tensor::from_slice(&[0i64, 2]))],
            &v,
        )
        .unwrap();
        assert_eq!(
            index(&x, &[TensorIndex::Int(2)]).unwrap().to_vec::<f32>(),
            vec![1.0, 2.0, 3.0, 4.0]
        );
        // overlapping self-assignment is refused, as in PyTorch (`y[1:] = y[:-1]`)
        let y = ar(5, &[5]);
        let src = index(&y, &[sl(None, Some(-1), 1)]).unwrap();
        let e = index_put_(&y, &[sl(Some(1), None, 1)], &src).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("unsupported operation: some elements"),
            "{e}"
        );
        assert_eq!(y.to_vec::<i64>(), vec![0, 1, 2, 3, 4]);
        // a broadcast value is expanded first, which PyTorch does not check (`y[:] = y[0]`)
        let y0 = index(&y, &[TensorIndex::Int(0)]).unwrap();
        index_put_(&y, &[sl(None, None, 1)], &y0).unwrap();
        assert_eq!(y.to_vec::<i64>(), vec![0; 5]);
    }

    #[test]
    fn gather_select_masked() {
        let x = ar(6, &[2, 3]);
        let g = gather(
            &x,
            1,
            &Tensor::from_vec(vec![2i64, 0, 1, 1], &[2, 2]).unwrap(),
        )
        .unwrap();
        assert_eq!(g.to_vec::<i64>(), vec![2, 0, 4, 4]);
        // Issue 17: negative indices are out of bounds, as in PyTorch (checked with torch 2.x:
        // `torch.gather(x, 1, torch.tensor([[-1, 0]]))`).
        let neg = |d: i64, v: Vec<i64>, shape: &[usize]| {
            gather(&x, d, &Tensor::from_vec(v, shape).unwrap())
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            neg(1, vec![-1, 0], &[1, 2]),
            "index -1 is out of bounds for dimension 1 with size 3"
        );
        assert_eq!(
            neg(0, vec![0, -2], &[2, 1]),
            "index -2 is out of bounds for dimension 0 with size 2"
        );
        let e = gather(
            &Tensor::scalar(Scalar::Float(5.0)),
            0,
            &Tensor::scalar(Scalar::Int(-1)),
        );
        assert_eq!(
            e.unwrap_err().to_string(),
            "index -1 is out of bounds for dimension 0 with size 1"
        );
        let s = index_select(&x, 1, &Tensor::from_slice(&[2i64, 2])).unwrap();
        assert_eq!(s.to_vec::<i64>(), vec![2, 2, 5, 5]);
        assert!(index_select(&x, 0, &Tensor::from_slice(&[5i64])).is_err());
        let m = Tensor::from_slice(&[true, false, true]);
        let f = masked_fill_scalar(&x, &m, Scalar::Float(2.5)).unwrap();
        assert_eq!(f.to_vec::<i64>(), vec![2, 1, 2, 2, 4, 2]);
        assert_eq!(
            masked_select(&x, &m).unwrap().to_vec::<i64>(),
            vec![0, 2, 3, 5]
        );
    }
}
