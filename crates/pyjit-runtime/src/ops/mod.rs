//! The kernels, as plain Rust functions (`ops::add(&a, &b)`), with PyTorch's semantics.
//!
//! Every function validates its inputs and returns a [`RuntimeError`] instead of panicking.
//! Results are fresh contiguous tensors unless PyTorch returns a view (shape ops, basic indexing).

mod creation;
mod einsum;
pub mod elem;
mod elementwise;
pub mod fused;
mod linalg;
mod nn;
mod reduce;
mod select;
mod shape;
pub mod vmath;

pub use creation::*;
pub use einsum::*;
pub use elementwise::*;
pub use linalg::*;
pub use nn::*;
pub use reduce::*;
pub use select::*;
pub use shape::*;

pub use crate::index::{
    gather, index, index_put_, index_put_scalar_, index_select, masked_fill, masked_fill_,
    masked_fill_scalar, masked_select,
};

use ndarray::{ArrayD, IxDyn, Zip};

use crate::dtype::DType;
use crate::element::Element;
use crate::error::{Result, RuntimeError};
use crate::tensor::{Tensor, check_alloc};
use crate::value::{Scalar, Value};

/// Whether operands of shapes `a` and `b` broadcast to `out` without repeating an element:
/// all three have the same number of elements, so the shapes differ only by dims of size 1
/// and the row-major orders of both operands are the result's (`[1, n] + [n]`, a layer's
/// `x @ w + b` for one row). Contiguous operands of such shapes combine as flat slices.
pub(crate) fn same_elements(a: &[usize], b: &[usize], out: &[usize]) -> bool {
    let n: usize = out.iter().product();
    a.iter().product::<usize>() == n && b.iter().product::<usize>() == n
}

/// A shape computed per op (inline up to rank 6: no allocation).
pub type Dims = smallvec::SmallVec<[usize; 6]>;

/// NumPy/PyTorch broadcasting of two shapes.
pub fn broadcast_shapes(a: &[usize], b: &[usize]) -> Result<Dims> {
    if a == b {
        return Ok(Dims::from_slice(a));
    }
    let n = a.len().max(b.len());
    // Built from the last dim and reversed.
    let mut out = Dims::with_capacity(n);
    // From the last dim, as PyTorch's `infer_size`: with several mismatches the error names the
    // innermost one.
    for i in (0..n).rev() {
        let da = if i + a.len() >= n {
            a[i + a.len() - n]
        } else {
            1
        };
        let db = if i + b.len() >= n {
            b[i + b.len() - n]
        } else {
            1
        };
        out.push(if da == db || db == 1 {
            da
        } else if da == 1 {
            db
        } else {
            return Err(RuntimeError::BroadcastMismatch {
                a: da,
                b: db,
                dim: i,
            });
        });
    }
    out.reverse();
    Ok(out)
}

/// Broadcast shape of several tensors.
pub fn broadcast_all(shapes: &[&[usize]]) -> Result<Vec<usize>> {
    let mut out = Dims::new();
    for s in shapes {
        out = broadcast_shapes(&out, s)?;
    }
    Ok(out.into_vec())
}

/// `out[i] = f(x[i])` with the input read as `S` (converted if needed).
pub(crate) fn map_unary<S: Element, D: Element>(t: &Tensor, f: impl Fn(S) -> D) -> Result<Tensor> {
    let n = check_alloc(t.shape(), D::DTYPE)?;
    // A contiguous input is mapped into a pooled buffer when the pool has one of the size
    // (a loop's `x.abs()` reuses the previous iteration's freed result instead of a fresh
    // allocation the kernel then page-faults in).
    if t.is_contiguous()
        && t.dtype() == S::DTYPE
        && let Some(mut out) = crate::bufpool::take::<D>(n)
    {
        let done = t.with_slice::<S, ()>(|x| {
            for (o, &v) in out.iter_mut().zip(x) {
                *o = f(v);
            }
        });
        if done.is_some() {
            return Tensor::from_vec(out, t.shape());
        }
    }
    Ok(Tensor::from_array(t.with_view_as::<S, ArrayD<D>>(|v| {
        crate::tensor::map_view(v, f)
    })))
}

/// `out[i] = f(a[i], b[i])` over the broadcast shape, inputs read as `S`.
pub(crate) fn map_binary<S: Element, D: Element>(
    a: &Tensor,
    b: &Tensor,
    f: impl Fn(S, S) -> D,
) -> Result<Tensor> {
    let shape = broadcast_shapes(a.shape(), b.shape())?;
    check_alloc(&shape, D::DTYPE)?;
    // Contiguous operands of the element type itself: their slices, no ndarray views (the
    // per-op cost of a small operand).
    if a.dtype() == S::DTYPE && b.dtype() == S::DTYPE {
        let data = a
            .with_slice::<S, _>(|x| {
                b.with_slice::<S, _>(|y| zip_slices(x, a.shape(), y, b.shape(), &shape, &f))
            })
            .flatten()
            .flatten();
        if let Some(data) = data {
            return Ok(Tensor::from_buffer(D::into_buffer(data), &shape));
        }
    }
    let out = a.with_view_as::<S, Option<ArrayD<D>>>(|av| {
        b.with_view_as::<S, Option<ArrayD<D>>>(|bv| {
            if let (Some(x), Some(y)) = (av.as_slice(), bv.as_slice())
                && let Some(data) = zip_slices(x, av.shape(), y, bv.shape(), &shape, &f)
            {
                return ArrayD::from_shape_vec(IxDyn(&shape), data).ok();
            }
            let av = av.broadcast(IxDyn(&shape))?;
            let bv = bv.broadcast(IxDyn(&shape))?;
            Some(Zip::from(&av).and(&bv).map_collect(|&x, &y| f(x, y)))
        })
    });
    out.map(Tensor::from_array)
        .ok_or_else(|| RuntimeError::Shape("broadcast failed".into()))
}

/// [`map_binary`]'s fast paths over plain slices (which the compiler vectorizes): row-major
/// operands `x` (of shape `xs`) and `y` (`ys`) of the result's elements (`same_elements`), or
/// one side a single element (a Python scalar or 0-d tensor); `None` for other broadcasts.
fn zip_slices<S: Copy, D>(
    x: &[S],
    xs: &[usize],
    y: &[S],
    ys: &[usize],
    shape: &[usize],
    f: impl Fn(S, S) -> D,
) -> Option<Vec<D>> {
    if same_elements(xs, ys, shape) {
        Some(x.iter().zip(y).map(|(&p, &q)| f(p, q)).collect())
    } else if y.len() == 1 && xs == shape {
        let q = y[0];
        Some(x.iter().map(|&p| f(p, q)).collect())
    } else if x.len() == 1 && ys == shape {
        let p = x[0];
        Some(y.iter().map(|&q| f(p, q)).collect())
    } else {
        None
    }
}

/// `out[i] = f(a[i], b[i], c[i])` over the broadcast shape, inputs read as `A`, `S`, `S`.
pub(crate) fn map_ternary<A: Element, S: Element, D: Element>(
    a: &Tensor,
    b: &Tensor,
    c: &Tensor,
    f: impl Fn(A, S, S) -> D,
) -> Result<Tensor> {
    let shape = broadcast_all(&[a.shape(), b.shape(), c.shape()])?;
    check_alloc(&shape, D::DTYPE)?;
    let out = a.with_view_as::<A, Option<ArrayD<D>>>(|av| {
        b.with_view_as::<S, Option<ArrayD<D>>>(|bv| {
            c.with_view_as::<S, Option<ArrayD<D>>>(|cv| {
                let av = av.broadcast(IxDyn(&shape))?;
                let bv = bv.broadcast(IxDyn(&shape))?;
                let cv = cv.broadcast(IxDyn(&shape))?;
                Some(
                    Zip::from(&av)
                        .and(&bv)
                        .and(&cv)
                        .map_collect(|&x, &y, &z| f(x, y, z)),
                )
            })
        })
    });
    out.map(Tensor::from_array)
        .ok_or_else(|| RuntimeError::Shape("broadcast failed".into()))
}

/// Whether any element of `t` (read as `T`) satisfies `pred`.
pub(crate) fn any_elem<T: Element>(t: &Tensor, pred: impl Fn(T) -> bool) -> bool {
    t.with_view_as::<T, bool>(|v| v.iter().any(|&x| pred(x)))
}

/// The dtype `torch.tensor(data)` infers for a (nested) literal: any float → float32, else any
/// int → int64, else bool.
pub fn literal_dtype(v: &Value) -> Option<DType> {
    fn walk(v: &Value, acc: &mut u8) -> bool {
        match v {
            Value::Bool(_) | Value::BoolList(_) => {}
            Value::Int(_) => *acc = (*acc).max(1),
            Value::IntList(l) if !l.is_empty() => *acc = (*acc).max(1),
            Value::Float(_) => *acc = (*acc).max(2),
            Value::FloatList(l) if !l.is_empty() => *acc = (*acc).max(2),
            Value::IntList(_) | Value::FloatList(_) => {}
            Value::Tensor(t) if t.dim() == 0 => {
                *acc = (*acc).max(match t.dtype().category() {
                    crate::dtype::Category::Bool => 0,
                    crate::dtype::Category::Int => 1,
                    crate::dtype::Category::Float => 2,
                })
            }
            Value::List(items) => {
                for i in items {
                    if !walk(i, acc) {
                        return false;
                    }
                }
            }
            _ => return false,
        }
        true
    }
    let mut acc = 0u8;
    let mut saw_bool_only = true;
    if !walk(v, &mut acc) {
        return None;
    }
    if acc > 0 {
        saw_bool_only = false;
    }
    Some(if saw_bool_only {
        // An empty list is float32 in PyTorch.
        if literal_is_empty(v) {
            crate::dtype::DEFAULT_FLOAT
        } else {
            DType::Bool
        }
    } else if acc == 1 {
        DType::Int64
    } else {
        crate::dtype::DEFAULT_FLOAT
    })
}

fn literal_is_empty(v: &Value) -> bool {
    match v {
        Value::List(items) => items.iter().all(literal_is_empty),
        Value::BoolList(b) => b.is_empty(),
        Value::IntList(b) => b.is_empty(),
        Value::FloatList(b) => b.is_empty(),
        _ => false,
    }
}

/// The shape of a (nested) literal, or `None` if it is ragged or not a literal.
pub fn literal_shape(v: &Value) -> Option<Vec<usize>> {
    literal_shape_checked(v).ok()
}

pub(crate) fn literal_shape_checked(v: &Value) -> Result<Vec<usize>> {
    match v {
        Value::Bool(_) | Value::Int(_) | Value::Float(_) => Ok(vec![]),
        Value::Tensor(t) if t.dim() == 0 => Ok(vec![]),
        Value::IntList(l) => Ok(vec![l.len()]),
        Value::FloatList(l) => Ok(vec![l.len()]),
        Value::BoolList(l) => Ok(vec![l.len()]),
        Value::List(items) => {
            let mut inner: Option<Vec<usize>> = None;
            for (dim_i, it) in items.iter().enumerate() {
                let s = literal_shape_checked(it)?;
                match &inner {
                    None => inner = Some(s),
                    Some(prev) if *prev != s => {
                        let _ = dim_i;
                        return Err(RuntimeError::ValueError(format!(
                            "expected sequence of length {} at dim 1 (got {})",
                            prev.first().copied().unwrap_or(0),
                            s.first().copied().unwrap_or(0)
                        )));
                    }
                    _ => {}
                }
            }
            let mut out = vec![items.len()];
            out.extend(inner.unwrap_or_default());
            Ok(out)
        }
        other => Err(RuntimeError::Value(format!(
            "Could not infer dtype of {}",
            other.type_name()
        ))),
    }
}

/// Flattens a literal into scalars in row-major order.
pub(crate) fn literal_scalars(v: &Value, out: &mut Vec<Scalar>) {
    match v {
        Value::Bool(b) => out.push(Scalar::Bool(*b)),
        Value::Int(i) => out.push(Scalar::Int(*i)),
        Value::Float(f) => out.push(Scalar::Float(*f)),
        Value::Tensor(t) => {
            if let Ok(s) = t.item() {
                out.push(s)
            }
        }
        Value::IntList(l) => out.extend(l.iter().map(|&i| Scalar::Int(i))),
        Value::FloatList(l) => out.extend(l.iter().map(|&f| Scalar::Float(f))),
        Value::BoolList(l) => out.extend(l.iter().map(|&b| Scalar::Bool(b))),
        Value::List(items) => items.iter().for_each(|i| literal_scalars(i, out)),
        _ => {}
    }
}

/// The special float values the kernels' bit-identity tests sprinkle into their inputs: NaN,
/// ±inf, ±0, a huge value, one whose exp is subnormal in f32, and an f32 subnormal.
#[cfg(test)]
pub(crate) const TEST_SPECIALS: [f64; 8] = [
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    0.0,
    -0.0,
    1e30,
    -88.5,
    1e-40,
];
