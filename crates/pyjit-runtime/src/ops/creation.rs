//! Creation routines: zeros/ones/full/arange/linspace/eye/*_like/tensor(literal).

use super::{literal_dtype, literal_scalars, literal_shape_checked};
use crate::dtype::{DEFAULT_FLOAT, DType};
use crate::element::Element;
use crate::error::{Result, RuntimeError};
use crate::tensor::{Tensor, alloc_filled, check_alloc};
use crate::value::{Scalar, Value};
use crate::with_dtype;

/// Validates a size list (no negative dims) and converts it.
pub fn sizes_to_shape(op: &str, sizes: &[i64]) -> Result<Vec<usize>> {
    if sizes.iter().any(|&d| d < 0) {
        return Err(RuntimeError::Shape(format!(
            "{op}: Dimension size must be non-negative."
        )));
    }
    Ok(sizes.iter().map(|&d| d as usize).collect())
}

/// `torch.zeros(size, dtype=)` (default float32).
pub fn zeros(sizes: &[i64], dtype: Option<DType>) -> Result<Tensor> {
    Tensor::zeros(
        &sizes_to_shape("zeros", sizes)?,
        dtype.unwrap_or(DEFAULT_FLOAT),
    )
}

/// `torch.ones(size, dtype=)`.
pub fn ones(sizes: &[i64], dtype: Option<DType>) -> Result<Tensor> {
    Tensor::ones(
        &sizes_to_shape("ones", sizes)?,
        dtype.unwrap_or(DEFAULT_FLOAT),
    )
}

/// `torch.empty(size, dtype=)`: zero-filled (deterministic), like a fresh allocation usually is.
pub fn empty(sizes: &[i64], dtype: Option<DType>) -> Result<Tensor> {
    zeros(sizes, dtype)
}

/// `torch.full(size, value, dtype=)`; the dtype defaults from the value (bool, int64, float32).
pub fn full(sizes: &[i64], value: Scalar, dtype: Option<DType>) -> Result<Tensor> {
    Tensor::full(
        &sizes_to_shape("full", sizes)?,
        value,
        dtype.unwrap_or(value.default_dtype()),
    )
}

/// `torch.zeros_like` & co: same shape, dtype from `dtype` or the input.
pub fn full_like(t: &Tensor, value: Scalar, dtype: Option<DType>) -> Result<Tensor> {
    Tensor::full(t.shape(), value, dtype.unwrap_or(t.dtype()))
}

pub fn zeros_like(t: &Tensor, dtype: Option<DType>) -> Result<Tensor> {
    full_like(t, Scalar::Int(0), dtype)
}

pub fn ones_like(t: &Tensor, dtype: Option<DType>) -> Result<Tensor> {
    full_like(t, Scalar::Int(1), dtype)
}

/// `torch.arange(start, end, step, dtype=)`: int64 if all bounds are ints, else float32.
pub fn arange(start: Scalar, end: Scalar, step: Scalar, dtype: Option<DType>) -> Result<Tensor> {
    let all_int = [start, end, step].iter().all(|s| !s.is_float());
    let dtype = dtype.unwrap_or(if all_int { DType::Int64 } else { DEFAULT_FLOAT });
    if dtype == DType::Bool {
        return Err(RuntimeError::not_implemented_for("arange_cpu", dtype));
    }
    let (s, e, st) = (start.to_f64(), end.to_f64(), step.to_f64());
    if st == 0.0 {
        return Err(RuntimeError::Value("step must be nonzero".into()));
    }
    if !s.is_finite() || !e.is_finite() {
        return Err(RuntimeError::Value(format!(
            "unsupported range: {s} -> {e}"
        )));
    }
    if (st > 0.0 && e < s) || (st < 0.0 && e > s) {
        return Err(RuntimeError::Value(
            "upper bound and lower bound inconsistent with step sign".into(),
        ));
    }
    let n = if all_int {
        let (si, ei, sti) = (
            start.to_i64() as i128,
            end.to_i64() as i128,
            step.to_i64() as i128,
        );
        let diff = ei - si;
        ((diff + sti - sti.signum()) / sti).max(0) as f64
    } else {
        ((e - s) / st).ceil().max(0.0)
    };
    if n > (usize::MAX >> 4) as f64 {
        return Err(RuntimeError::AllocationTooLarge { bytes: u128::MAX });
    }
    let n = n as usize;
    check_alloc(&[n], dtype)?;
    Ok(with_dtype!(dtype, T => {
        let v: Vec<T> = if all_int && dtype.is_int() {
            let (si, sti) = (start.to_i64(), step.to_i64());
            (0..n).map(|i| T::from_i64(si.wrapping_add((i as i64).wrapping_mul(sti)))).collect()
        } else {
            (0..n).map(|i| T::from_f64(s + i as f64 * st)).collect()
        };
        Tensor::from_buffer(T::into_buffer(v), &[n])
    }))
}

/// `torch.linspace(start, end, steps, dtype=)` with PyTorch's symmetric formula.
pub fn linspace(start: Scalar, end: Scalar, steps: i64, dtype: Option<DType>) -> Result<Tensor> {
    if steps < 0 {
        return Err(RuntimeError::Value(
            "number of steps must be non-negative".into(),
        ));
    }
    let dtype = dtype.unwrap_or(DEFAULT_FLOAT);
    let n = steps as usize;
    check_alloc(&[n], dtype)?;
    let (s, e) = (start.to_f64(), end.to_f64());
    let step = if n > 1 { (e - s) / (n - 1) as f64 } else { 0.0 };
    // The first half counts up from `start`, the rest down from `end`; one step is `[start]`.
    let half = if n == 1 { 1 } else { n / 2 };
    let vals: Vec<f64> = (0..n)
        .map(|i| {
            if i < half {
                s + step * i as f64
            } else {
                e - step * (n - 1 - i) as f64
            }
        })
        .collect();
    Ok(with_dtype!(dtype, T => {
        let v: Vec<T> = if dtype == DType::Float32 {
            // PyTorch computes float32 linspace in float32.
            let (sf, stf, ef) = (s as f32, step as f32, e as f32);
            (0..n).map(|i| T::from_f64(if i < half { sf + stf * i as f32 } else { ef - stf * (n - 1 - i) as f32 } as f64)).collect()
        } else {
            vals.iter().map(|&x| T::from_f64(x)).collect()
        };
        Tensor::from_buffer(T::into_buffer(v), &[n])
    }))
}

/// `torch.eye(n, m, dtype=)`.
pub fn eye(n: i64, m: Option<i64>, dtype: Option<DType>) -> Result<Tensor> {
    let m = m.unwrap_or(n);
    if n < 0 || m < 0 {
        return Err(RuntimeError::Value(format!(
            "n must be greater or equal to 0, got {}",
            n.min(m)
        )));
    }
    let t = Tensor::zeros(&[n as usize, m as usize], dtype.unwrap_or(DEFAULT_FLOAT))?;
    for i in 0..(n.min(m)) {
        t.select(0, i)?.select(0, i)?.fill_(Scalar::Int(1))?;
    }
    Ok(t)
}

/// `torch.tensor(data, dtype=)` from a (nested) literal.
pub fn tensor(data: &Value, dtype: Option<DType>) -> Result<Tensor> {
    let shape = literal_shape_checked(data)?;
    let dt = match dtype {
        Some(d) => d,
        None => literal_dtype(data).ok_or_else(|| {
            RuntimeError::Value(format!("Could not infer dtype of {}", data.type_name()))
        })?,
    };
    let mut scalars = Vec::new();
    literal_scalars(data, &mut scalars);
    check_alloc(&shape, dt)?;
    Ok(with_dtype!(dt, T => {
        let mut v: Vec<T> = alloc_filled(0, T::default())?;
        v.extend(scalars.iter().map(|&s| crate::tensor::scalar_to::<T>(s)));
        Tensor::from_vec(v, &shape)?
    }))
}

/// `torch.scalar_tensor(s, dtype=)` / `torch.tensor(s)`.
pub fn scalar_tensor(s: Scalar, dtype: Option<DType>) -> Tensor {
    Tensor::scalar_typed(s, dtype.unwrap_or(s.default_dtype()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arange_and_linspace() {
        let a = arange(Scalar::Int(0), Scalar::Int(5), Scalar::Int(2), None).unwrap();
        assert_eq!(a.dtype(), DType::Int64);
        assert_eq!(a.to_vec::<i64>(), vec![0, 2, 4]);
        let b = arange(Scalar::Int(0), Scalar::Int(1), Scalar::Float(0.3), None).unwrap();
        assert_eq!(b.dtype(), DType::Float32);
        assert_eq!(b.numel(), 4);
        let c = arange(Scalar::Int(5), Scalar::Int(0), Scalar::Int(-2), None).unwrap();
        assert_eq!(c.to_vec::<i64>(), vec![5, 3, 1]);
        assert!(arange(Scalar::Int(0), Scalar::Int(5), Scalar::Int(0), None).is_err());
        let l = linspace(Scalar::Int(0), Scalar::Int(10), 4, Some(DType::Int64)).unwrap();
        assert_eq!(l.to_vec::<i64>(), vec![0, 3, 6, 10]);
    }

    #[test]
    fn literals() {
        let v = Value::List(vec![Value::Bool(true), Value::Int(2)]);
        let t = tensor(&v, None).unwrap();
        assert_eq!(t.dtype(), DType::Int64);
        assert_eq!(t.to_vec::<i64>(), vec![1, 2]);
        let ragged = Value::List(vec![Value::IntList(vec![1, 2]), Value::IntList(vec![1])]);
        assert!(tensor(&ragged, None).is_err());
        assert_eq!(
            tensor(&Value::List(vec![]), None).unwrap().dtype(),
            DType::Float32
        );
        assert!(zeros(&[-1], None).is_err());
        assert!(matches!(
            zeros(&[1 << 40, 1 << 20], None),
            Err(RuntimeError::AllocationTooLarge { .. })
        ));
    }
}
