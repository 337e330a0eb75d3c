//! Ops that select or order elements, and the small shape ops real TorchScript libraries use:
//! `sort`, `topk`, `nonzero`, one-argument `where`, `tril`/`triu`, `unbind`, `meshgrid`.

use std::cmp::Ordering;

use crate::dtype::DType;
use crate::element::Element;
use crate::error::{Result, RuntimeError};
use crate::tensor::{Tensor, wrap_dim};

/// PyTorch's order for sorting: NaN is greater than every number.
fn total_cmp<T: Element>(a: &T, b: &T) -> Ordering {
    match (a.is_nan_elem(), b.is_nan_elem()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        _ => a.partial_cmp(b).unwrap_or(Ordering::Equal),
    }
}

/// The lanes of `t` along `dim` (moved last, contiguous): `(data, lane length, moved shape)`.
fn lanes<T: Element>(t: &Tensor, d: usize) -> Result<(Vec<T>, usize, Vec<usize>)> {
    let last = t.dim() as i64 - 1;
    let moved = t.transpose(d as i64, last)?.contiguous()?;
    let n = moved.shape().last().copied().unwrap_or(1);
    Ok((moved.to_vec::<T>(), n, moved.shape().to_vec()))
}

/// Sorts every lane along `dim`; keeps the first `k` of each (all when `k` is `None`).
fn sorted_lanes(
    t: &Tensor,
    dim: i64,
    descending: bool,
    k: Option<usize>,
) -> Result<(Tensor, Tensor)> {
    if t.dim() == 0 {
        wrap_dim(dim, 0)?;
        return Ok((t.clone_data()?, Tensor::from_vec(vec![0i64], &[])?));
    }
    let d = wrap_dim(dim, t.dim())?;
    crate::with_dtype!(t.dtype(), T => {
        let (data, n, mut shape) = lanes::<T>(t, d)?;
        let keep = k.unwrap_or(n);
        let mut vals: Vec<T> = Vec::with_capacity(data.len() / n.max(1) * keep);
        let mut idx: Vec<i64> = Vec::with_capacity(vals.capacity());
        if n > 0 {
            for lane in data.chunks(n) {
                let mut order: Vec<usize> = (0..n).collect();
                // stable, as PyTorch's CPU sort: equal elements keep their order
                if descending {
                    order.sort_by(|&a, &b| total_cmp(&lane[b], &lane[a]));
                } else {
                    order.sort_by(|&a, &b| total_cmp(&lane[a], &lane[b]));
                }
                for &i in order.iter().take(keep) {
                    vals.push(lane[i]);
                    idx.push(i as i64);
                }
            }
        }
        if let Some(last) = shape.last_mut() {
            *last = keep;
        }
        let last = t.dim() as i64 - 1;
        let v = Tensor::from_vec(vals, &shape)?.transpose(d as i64, last)?.contiguous()?;
        let i = Tensor::from_vec(idx, &shape)?.transpose(d as i64, last)?.contiguous()?;
        Ok((v, i))
    })
}

/// `torch.sort(x, dim=-1, descending=False)` → (values, indices); NaN sorts last (first when
/// descending), equal elements keep their order.
pub fn sort(t: &Tensor, dim: i64, descending: bool) -> Result<(Tensor, Tensor)> {
    sorted_lanes(t, dim, descending, None)
}

/// `torch.topk(x, k, dim=-1, largest=True, sorted=True)` → (values, indices), sorted.
pub fn topk(t: &Tensor, k: i64, dim: i64, largest: bool) -> Result<(Tensor, Tensor)> {
    let n = if t.dim() == 0 { 1 } else { t.size(dim)? as i64 };
    if k < 0 || k > n {
        return Err(RuntimeError::Value(format!(
            "selected index k out of range (k = {k}, size of dim = {n})"
        )));
    }
    sorted_lanes(t, dim, largest, Some(k as usize))
}

/// `torch.nonzero(x)`: the indices of the non-zero elements, one row per element in row-major
/// order, shape `[n, x.dim()]`, int64.
pub fn nonzero(t: &Tensor) -> Result<Tensor> {
    let shape = t.shape().to_vec();
    let flags: Vec<bool> = t.to_vec::<bool>();
    let mut out = Vec::new();
    let mut count = 0usize;
    for (flat, &f) in flags.iter().enumerate() {
        if !f {
            continue;
        }
        count += 1;
        let mut rest = flat;
        let start = out.len();
        out.resize(start + shape.len(), 0i64);
        for (j, &s) in shape.iter().enumerate().rev() {
            out[start + j] = (rest % s.max(1)) as i64;
            rest /= s.max(1);
        }
    }
    Tensor::from_vec(out, &[count, shape.len()])
}

/// `torch.where(cond)`: `nonzero(cond)` as one index tensor per dimension.
pub fn where_indices(cond: &Tensor) -> Result<Vec<Tensor>> {
    let nz = nonzero(cond)?;
    (0..cond.dim() as i64)
        .map(|j| nz.select(1, j)?.contiguous())
        .collect()
}

/// `tril(x, diagonal)` (`upper` false) and `triu(x, diagonal)` (`upper` true) over the last two
/// dims.
pub fn tri(t: &Tensor, diagonal: i64, upper: bool) -> Result<Tensor> {
    let name = if upper { "triu" } else { "tril" };
    if t.dim() < 2 {
        return Err(RuntimeError::Shape(format!(
            "{name}: input tensor must have at least 2 dimensions"
        )));
    }
    let c = t.contiguous()?;
    let (rows, cols) = (c.shape()[c.dim() - 2], c.shape()[c.dim() - 1]);
    crate::with_dtype!(c.dtype(), T => {
        let mut data = c.to_vec::<T>();
        for (k, v) in data.iter_mut().enumerate() {
            let j = (k % cols.max(1)) as i64;
            let i = ((k / cols.max(1)) % rows.max(1)) as i64;
            let keep = if upper { j - i >= diagonal } else { j - i <= diagonal };
            if !keep {
                *v = T::default();
            }
        }
        Tensor::from_vec(data, c.shape())
    })
}

/// `x.tolist()` of a 1-d tensor as the `List[int]` (`float` false) or `List[float]` its scripted
/// annotation asks for; the element types must match, as TorchScript checks.
pub fn tolist_of(t: &Tensor, float: bool) -> Result<(Vec<i64>, Vec<f64>)> {
    if t.dim() != 1 {
        return Err(RuntimeError::Value(format!(
            "Output annotation list dimension and runtime tensor dimension must match for tolist() (a 1-d list, a {}-d tensor)",
            t.dim()
        )));
    }
    let ok = if float {
        t.dtype().is_float()
    } else {
        matches!(t.dtype(), DType::Int32 | DType::Int64)
    };
    if !ok {
        return Err(RuntimeError::Value(format!(
            "Output annotation element type and runtime tensor element type must match for tolist() (List[{}] from a {} tensor)",
            if float { "float" } else { "int" },
            t.dtype().scalar_type_name()
        )));
    }
    Ok(if float {
        (Vec::new(), t.to_vec::<f64>())
    } else {
        (t.to_vec::<i64>(), Vec::new())
    })
}

/// `x.unbind(dim)`: the views `x.select(dim, i)` for every `i`.
pub fn unbind(t: &Tensor, dim: i64) -> Result<Vec<Tensor>> {
    if t.dim() == 0 {
        return Err(RuntimeError::Index(
            "Dimension specified as 0 but tensor has no dimensions".into(),
        ));
    }
    let d = wrap_dim(dim, t.dim())?;
    (0..t.shape()[d] as i64)
        .map(|i| t.select(d as i64, i))
        .collect()
}

/// `torch.meshgrid(tensors, indexing)`: `"ij"` (matrix) or `"xy"` (Cartesian: the first two
/// output dims swapped). Each input is 0-d or 1-d; the results are expanded views.
pub fn meshgrid(tensors: &[Tensor], indexing: &str) -> Result<Vec<Tensor>> {
    if indexing != "ij" && indexing != "xy" {
        return Err(RuntimeError::Value(format!(
            "torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: {indexing}"
        )));
    }
    if tensors.is_empty() {
        return Err(RuntimeError::Value(
            "meshgrid expects a non-empty TensorList".into(),
        ));
    }
    if let Some(bad) = tensors.iter().find(|t| t.dim() > 1) {
        return Err(RuntimeError::Value(format!(
            "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {}-d",
            bad.dim()
        )));
    }
    let dt: DType = tensors[0].dtype();
    if tensors.iter().any(|t| t.dtype() != dt) {
        return Err(RuntimeError::DType(
            "meshgrid expects all tensors to have the same dtype".into(),
        ));
    }
    let n = tensors.len();
    let mut sizes: Vec<i64> = tensors.iter().map(|t| t.numel() as i64).collect();
    let swap = indexing == "xy" && n >= 2;
    if swap {
        sizes.swap(0, 1);
    }
    tensors
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let pos = match (swap, i) {
                (true, 0) => 1,
                (true, 1) => 0,
                _ => i,
            };
            let mut view = vec![1i64; n];
            view[pos] = -1;
            t.reshape(&view)?.expand(&sizes)
        })
        .collect()
}
