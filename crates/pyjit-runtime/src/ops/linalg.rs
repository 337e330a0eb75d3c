//! matmul and friends. Float matrices go through ndarray's `dot` (matrixmultiply's packed,
//! cache-blocked GEMM); integer products use a wrapping i-k-j loop (ndarray's integer `dot` would
//! panic on overflow in debug builds, and PyTorch wraps).

use ndarray::{Array2, ArrayView2, Ix2};

use super::{broadcast_shapes, mul};
use crate::dtype::DType;
use crate::element::Element;
use crate::error::{Result, RuntimeError};
use crate::tensor::{Tensor, check_alloc, fmt_list};

fn same_dtype(a: &Tensor, b: &Tensor) -> Result<DType> {
    if a.dtype() != b.dtype() {
        return Err(RuntimeError::DType(format!(
            "expected m1 and m2 to have the same dtype, but got: {} != {}",
            c_type_name(a.dtype()),
            c_type_name(b.dtype())
        )));
    }
    if a.dtype() == DType::Bool {
        return Err(RuntimeError::not_implemented_for(
            "addmm_impl_cpu_",
            DType::Bool,
        ));
    }
    Ok(a.dtype())
}

fn c_type_name(d: DType) -> &'static str {
    match d {
        DType::Bool => "bool",
        DType::Int32 => "int",
        DType::Int64 => "long int",
        DType::Float32 => "float",
        DType::Float64 => "double",
    }
}

fn int_gemm<T: Copy + Default>(
    a: ArrayView2<'_, T>,
    b: ArrayView2<'_, T>,
    mul: impl Fn(T, T) -> T,
    add: impl Fn(T, T) -> T,
) -> Array2<T> {
    let (m, k) = a.dim();
    let n = b.dim().1;
    let mut out = Array2::<T>::default((m, n));
    for i in 0..m {
        for p in 0..k {
            let x = a[[i, p]];
            for j in 0..n {
                out[[i, j]] = add(out[[i, j]], mul(x, b[[p, j]]));
            }
        }
    }
    out
}

/// 2-d × 2-d product of two same-dtype tensors (shapes already checked).
fn gemm(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let (m, n) = (a.shape()[0], b.shape()[1]);
    check_alloc(&[m, n], a.dtype())?;
    fn go<T: Element>(
        a: &Tensor,
        b: &Tensor,
        f: impl Fn(ArrayView2<'_, T>, ArrayView2<'_, T>) -> Array2<T>,
    ) -> Result<Tensor> {
        let out = a.with_view_as::<T, Result<Array2<T>>>(|av| {
            b.with_view_as::<T, Result<Array2<T>>>(|bv| {
                let av = av
                    .into_dimensionality::<Ix2>()
                    .map_err(|e| RuntimeError::Shape(e.to_string()))?;
                let bv = bv
                    .into_dimensionality::<Ix2>()
                    .map_err(|e| RuntimeError::Shape(e.to_string()))?;
                Ok(f(av, bv))
            })
        })?;
        Ok(Tensor::from_array(out.into_dyn()))
    }
    match a.dtype() {
        DType::Float32 => go::<f32>(a, b, |x, y| x.dot(&y)),
        DType::Float64 => go::<f64>(a, b, |x, y| x.dot(&y)),
        DType::Int32 => go::<i32>(a, b, |x, y| {
            int_gemm(x, y, i32::wrapping_mul, i32::wrapping_add)
        }),
        DType::Int64 => go::<i64>(a, b, |x, y| {
            int_gemm(x, y, i64::wrapping_mul, i64::wrapping_add)
        }),
        DType::Bool => Err(RuntimeError::not_implemented_for(
            "addmm_impl_cpu_",
            DType::Bool,
        )),
    }
}

/// `mm(a, b)`: 2-d × 2-d.
pub fn mm(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    if a.dim() != 2 {
        return Err(RuntimeError::Shape(format!(
            "self must be a matrix, got {}-D tensor",
            a.dim()
        )));
    }
    if b.dim() != 2 {
        return Err(RuntimeError::Shape(format!(
            "mat2 must be a matrix, got {}-D tensor",
            b.dim()
        )));
    }
    same_dtype(a, b)?;
    if a.shape()[1] != b.shape()[0] {
        return Err(RuntimeError::Shape(format!(
            "mm: mat1 and mat2 shapes cannot be multiplied ({}x{} and {}x{})",
            a.shape()[0],
            a.shape()[1],
            b.shape()[0],
            b.shape()[1]
        )));
    }
    gemm(a, b)
}

/// `dot(a, b)`: 1-d · 1-d → 0-d.
pub fn dot(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    if a.dim() != 1 || b.dim() != 1 {
        return Err(RuntimeError::Shape(format!(
            "1D tensors expected, but got {}D and {}D tensors",
            a.dim(),
            b.dim()
        )));
    }
    if a.dtype() != b.dtype() {
        return Err(RuntimeError::DType(format!(
            "dot : expected both vectors to have same dtype, but found {} and {}",
            a.dtype().scalar_type_name(),
            b.dtype().scalar_type_name()
        )));
    }
    if a.shape()[0] != b.shape()[0] {
        return Err(RuntimeError::Shape(format!(
            "inconsistent tensor size, expected tensor [{}] and src [{}] to have the same number of elements, but got {} and {} elements respectively",
            a.shape()[0],
            b.shape()[0],
            a.shape()[0],
            b.shape()[0]
        )));
    }
    same_dtype(a, b)?;
    let r = gemm(&a.unsqueeze(0)?, &b.unsqueeze(1)?)?;
    r.reshape(&[])
}

/// `mv(m, v)`: 2-d · 1-d.
pub fn mv(m: &Tensor, v: &Tensor) -> Result<Tensor> {
    if m.dim() != 2 || v.dim() != 1 {
        return Err(RuntimeError::Shape(format!(
            "vector + matrix @ vector expected, got 1, {}, {}",
            m.dim(),
            v.dim()
        )));
    }
    if m.shape()[1] != v.shape()[0] {
        return Err(RuntimeError::Shape(format!(
            "size mismatch, got input ({}), mat ({}x{}), vec ({})",
            m.shape()[0],
            m.shape()[0],
            m.shape()[1],
            v.shape()[0]
        )));
    }
    same_dtype(m, v)?;
    gemm(m, &v.unsqueeze(1)?)?.reshape(&[-1])
}

/// `bmm(a, b)`: (B, n, k) × (B, k, m).
pub fn bmm(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    if a.dim() != 3 {
        return Err(RuntimeError::Shape("batch1 must be a 3D tensor".into()));
    }
    if b.dim() != 3 {
        return Err(RuntimeError::Shape("batch2 must be a 3D tensor".into()));
    }
    if b.shape()[0] != a.shape()[0] || b.shape()[1] != a.shape()[2] {
        return Err(RuntimeError::Shape(format!(
            "Expected size for first two dimensions of batch2 tensor to be: [{}, {}] but got: [{}, {}].",
            a.shape()[0],
            a.shape()[2],
            b.shape()[0],
            b.shape()[1]
        )));
    }
    same_dtype(a, b)?;
    batched(a, b)
}

/// Batched product of ≥3-d tensors whose batch dims already match.
fn batched(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let r = a.dim();
    let batch = &a.shape()[..r - 2];
    let (n, m) = (a.shape()[r - 2], b.shape()[r - 1]);
    let mut shape = batch.to_vec();
    shape.extend([n, m]);
    let total: usize = batch.iter().product();
    check_alloc(&shape, a.dtype())?;
    let a3 = a.reshape(&[total as i64, n as i64, a.shape()[r - 1] as i64])?;
    let b3 = b.reshape(&[total as i64, b.shape()[r - 2] as i64, m as i64])?;
    let mut parts = Vec::with_capacity(total);
    for i in 0..total {
        parts.push(gemm(&a3.select(0, i as i64)?, &b3.select(0, i as i64)?)?);
    }
    if parts.is_empty() {
        return Tensor::zeros(&shape, a.dtype());
    }
    let out = super::stack(&parts, 0)?;
    out.reshape(&shape.iter().map(|&d| d as i64).collect::<Vec<_>>())
}

/// `matmul(a, b)` / `a @ b` in all its forms: dot, mv, mm, vector-matrix and broadcast batches.
pub fn matmul(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let (da, db) = (a.dim(), b.dim());
    if da == 0 || db == 0 {
        return Err(RuntimeError::Shape(format!(
            "both arguments to matmul need to be at least 1D, but they are {da}D and {db}D"
        )));
    }
    match (da, db) {
        (1, 1) => dot(a, b),
        (2, 1) => mv(a, b),
        (1, 2) => mm(&a.unsqueeze(0)?, b)?.squeeze_dim(0),
        (2, 2) => mm(a, b),
        _ => {
            same_dtype(a, b)?;
            let a2 = if da == 1 { a.unsqueeze(0)? } else { a.clone() };
            let b2 = if db == 1 { b.unsqueeze(1)? } else { b.clone() };
            let (ra, rb) = (a2.dim(), b2.dim());
            let (n, k1) = (a2.shape()[ra - 2], a2.shape()[ra - 1]);
            let (k2, m) = (b2.shape()[rb - 2], b2.shape()[rb - 1]);
            if k1 != k2 {
                return Err(RuntimeError::Shape(format!(
                    "Expected size for first two dimensions of batch2 tensor to be: [{}, {}] but got: [{}, {}].",
                    a2.shape()[..ra - 2].iter().product::<usize>(),
                    k1,
                    b2.shape()[..rb - 2].iter().product::<usize>(),
                    k2
                )));
            }
            let batch = broadcast_shapes(&a2.shape()[..ra - 2], &b2.shape()[..rb - 2])?;
            let mut sa: Vec<usize> = batch.clone();
            sa.extend([n, k1]);
            let mut sb: Vec<usize> = batch.clone();
            sb.extend([k2, m]);
            let r = batched(&a2.broadcast_to(&sa)?, &b2.broadcast_to(&sb)?)?;
            let r = if da == 1 { r.squeeze_dim(-2)? } else { r };
            if db == 1 { r.squeeze_dim(-1) } else { Ok(r) }
        }
    }
}

/// `outer(a, b)`: 1-d ⊗ 1-d (with type promotion, as `a[:, None] * b`).
pub fn outer(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    if a.dim() != 1 || b.dim() != 1 {
        return Err(RuntimeError::Shape(format!(
            "outer: Expected 1-D argument self, but got {}-D",
            if a.dim() != 1 { a.dim() } else { b.dim() }
        )));
    }
    mul(&a.unsqueeze(1)?, b)
}

/// `F.linear(x, w, b)`: `x @ w.T + b`.
pub fn linear(x: &Tensor, w: &Tensor, bias: Option<&Tensor>) -> Result<Tensor> {
    let y = matmul(x, &w.t()?)?;
    match bias {
        Some(b) => super::add(&y, b),
        None => Ok(y),
    }
}

#[allow(dead_code)]
fn shape_msg(s: &[usize]) -> String {
    fmt_list(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ar(n: usize, shape: &[usize]) -> Tensor {
        Tensor::from_vec((0..n).map(|v| v as f32).collect(), shape).unwrap()
    }

    #[test]
    fn all_matmul_forms() {
        let m = ar(6, &[2, 3]);
        let v = ar(3, &[3]);
        assert_eq!(matmul(&v, &v).unwrap().to_vec::<f32>(), vec![5.0]);
        assert_eq!(matmul(&v, &v).unwrap().dim(), 0);
        assert_eq!(matmul(&m, &v).unwrap().to_vec::<f32>(), vec![5.0, 14.0]);
        let w = ar(2, &[2]);
        assert_eq!(matmul(&w, &m).unwrap().to_vec::<f32>(), vec![3.0, 4.0, 5.0]);
        let mt = m.t().unwrap();
        assert_eq!(
            matmul(&m, &mt).unwrap().to_vec::<f32>(),
            vec![5.0, 14.0, 14.0, 50.0]
        );
        let b = ar(12, &[2, 2, 3]);
        let r = matmul(&b, &mt).unwrap();
        assert_eq!(r.shape(), &[2, 2, 2]);
        let r2 = matmul(&ar(6, &[1, 2, 3]), &ar(18, &[3, 3, 2])).unwrap();
        assert_eq!(r2.shape(), &[3, 2, 2]);
        let r3 = matmul(&v, &ar(18, &[2, 3, 3])).unwrap();
        assert_eq!(r3.shape(), &[2, 3]);
        let e = matmul(&m, &m).unwrap_err();
        assert_eq!(
            e.to_string(),
            "mm: mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)"
        );
        assert!(matmul(&Tensor::scalar(crate::Scalar::Float(1.0)), &v).is_err());
        let i = Tensor::from_vec(vec![1i64 << 62, 4], &[1, 2]).unwrap();
        let j = Tensor::from_vec(vec![4i64, 1], &[2, 1]).unwrap();
        assert_eq!(mm(&i, &j).unwrap().to_vec::<i64>(), vec![4]);
        let d = m.to_dtype(DType::Float64).unwrap();
        assert!(matches!(mm(&d, &mt), Err(RuntimeError::DType(_))));
    }
}
