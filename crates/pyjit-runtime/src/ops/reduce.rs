//! Reductions (all dims or some, `keepdim`, negative dims) and scans along one dim.

use crate::dtype::{DEFAULT_FLOAT, DType};
use crate::element::Element;
use crate::error::{Result, RuntimeError};
use crate::tensor::{Tensor, check_alloc, wrap_dim};
use crate::value::Scalar;
use crate::with_dtype;

use super::vmath::{self, PAR_MIN, multiversion_fn};
use crate::par;

/// Which dims a reduction removes: `None` or an empty list means all of them (PyTorch's rule for
/// `sum(dim=[])`). Duplicates are an error.
pub fn reduced_mask(dims: Option<&[i64]>, rank: usize) -> Result<Vec<bool>> {
    let mut mask = vec![false; rank];
    match dims {
        None | Some([]) => mask.iter_mut().for_each(|m| *m = true),
        Some(ds) => {
            for &d in ds {
                let w = wrap_dim(d, rank)?;
                if rank == 0 {
                    continue;
                }
                if mask[w] {
                    return Err(RuntimeError::Value(format!(
                        "dim {w} appears multiple times in the list of dims"
                    )));
                }
                mask[w] = true;
            }
        }
    }
    Ok(mask)
}

fn out_shape(shape: &[usize], mask: &[bool], keepdim: bool) -> Vec<usize> {
    shape
        .iter()
        .zip(mask)
        .filter_map(|(&n, &m)| match (m, keepdim) {
            (false, _) => Some(n),
            (true, true) => Some(1),
            (true, false) => None,
        })
        .collect()
}

/// Calls `f(data, inner)` where `data` holds the elements (as `T`) with the reduced dims moved
/// last, so each run of `inner` elements is one output's lane. Borrows without copying when the
/// layout already fits.
fn with_lanes<T: Element, R>(
    t: &Tensor,
    mask: &[bool],
    f: impl FnOnce(&[T], usize) -> R,
) -> Result<R> {
    let rank = t.dim();
    let inner: usize = (0..rank)
        .filter(|&d| mask[d])
        .map(|d| t.shape()[d])
        .product();
    let mut f = Some(f);
    // The reduced dims already trail (an all-reduction, a reduction over rows) and the tensor
    // is contiguous: its elements are the lanes as they are, without a permuted view (whose
    // construction is most of the time of a small reduction).
    if mask.windows(2).all(|w| w[0] <= w[1])
        && t.dtype() == T::DTYPE
        && let Some(r) = t.with_slice::<T, R>(|s| (f.take().expect("once"))(s, inner))
    {
        return Ok(r);
    }
    let mut perm: Vec<i64> = (0..rank).filter(|&d| !mask[d]).map(|d| d as i64).collect();
    perm.extend((0..rank).filter(|&d| mask[d]).map(|d| d as i64));
    let p = t.permute(&perm)?;
    check_alloc(p.shape(), T::DTYPE)?;
    if p.dtype() == T::DTYPE {
        let done = p.with_view::<T, Option<R>>(|v| {
            v.as_slice().map(|s| (f.take().expect("once"))(s, inner))
        });
        if let Some(Some(r)) = done {
            return Ok(r);
        }
    }
    let data = p.to_vec::<T>();
    Ok((f.take().expect("once"))(&data, inner))
}

/// Applies `f` to each lane, producing one output element per lane (lanes spread over the pool
/// when there are many elements and more than one lane).
fn reduce_lanes<T: Element, D: Element>(
    t: &Tensor,
    mask: &[bool],
    keepdim: bool,
    f: impl Fn(&[T]) -> D + Sync,
) -> Result<Tensor> {
    let shape = out_shape(t.shape(), mask, keepdim);
    check_alloc(&shape, D::DTYPE)?;
    let n_out: usize = shape.iter().product();
    let out = with_lanes::<T, Vec<D>>(t, mask, |data, inner| {
        if inner == 0 {
            (0..n_out).map(|_| f(&[])).collect()
        } else if data.len() >= PAR_MIN && n_out > 1 && vmath::num_threads() > 1 {
            // Tasks of whole lanes, about `PAR_CHUNK` elements each.
            let lanes = (vmath::PAR_CHUNK / inner).max(1);
            let n_lanes = data.len() / inner;
            par::map_collect(n_lanes.div_ceil(lanes), |t| {
                let hi = ((t + 1) * lanes).min(n_lanes);
                data[t * lanes * inner..hi * inner]
                    .chunks_exact(inner)
                    .map(&f)
                    .collect::<Vec<D>>()
            })
            .concat()
        } else {
            data.chunks_exact(inner).map(&f).collect()
        }
    })?;
    Tensor::from_vec(out, &shape)
}

/// Sum of f32 values accumulated in f64 (more accurate than PyTorch's cascade sum, so results
/// agree with it to float32 rounding); vectorized, threaded and deterministic
/// ([`vmath::sum_f32`]).
fn sum_f32(v: &[f32]) -> f32 {
    vmath::sum_f32(v) as f32
}

/// Pairwise (cascade) sum of f64 values ([`vmath::sum_f64`]).
fn sum_f64(v: &[f64]) -> f64 {
    vmath::sum_f64(v)
}

/// Reduces a view that has expanded (stride-0) dims without materializing it: those dims are
/// narrowed to size 1, `reduce` runs on the narrowed view, `repeat(result, r)` accounts for the
/// `r` copies each reduced element stood for (a sum multiplies by `r`; a max ignores it), and
/// kept expanded dims are broadcast back into the (fresh, contiguous) result. So
/// `x[0].expand(n, n, 4).sum()` reads 4 elements, as PyTorch's strided reduction does.
fn reduce_unexpanded(
    t: &Tensor,
    mask: &[bool],
    keepdim: bool,
    reduce: impl Fn(&Tensor) -> Result<Tensor>,
    repeat: impl Fn(Tensor, usize) -> Result<Tensor>,
) -> Result<Tensor> {
    let expanded: Vec<usize> = (0..t.dim())
        .filter(|&d| t.strides()[d] == 0 && t.shape()[d] > 1)
        .collect();
    if expanded.is_empty() {
        return reduce(t);
    }
    let mut narrow = t.clone();
    let mut reps = 1usize;
    for &d in &expanded {
        narrow = narrow.slice(d as i64, Some(0), Some(1), 1)?;
        if mask[d] {
            reps = reps.saturating_mul(t.shape()[d]);
        }
    }
    let r = reduce(&narrow)?;
    let r = if reps > 1 { repeat(r, reps)? } else { r };
    let target = out_shape(t.shape(), mask, keepdim);
    if r.shape() == target.as_slice() {
        return Ok(r);
    }
    check_alloc(&target, r.dtype())?;
    let sizes: Vec<i64> = target.iter().map(|&d| d as i64).collect();
    r.expand(&sizes)?.contiguous()
}

/// `r` copies summed: `r * s` in the result's dtype (wrapping for ints, as the sum would).
fn repeat_sum(s: Tensor, r: usize) -> Result<Tensor> {
    match s.dtype() {
        DType::Bool => Ok(s),
        d if d.is_float() => super::mul_scalar(&s, Scalar::Float(r as f64)),
        _ => super::mul_scalar(&s, Scalar::Int(r as i64)),
    }
}

fn no_repeat(s: Tensor, _r: usize) -> Result<Tensor> {
    Ok(s)
}

fn sum_dtype(input: DType, dtype: Option<DType>) -> DType {
    dtype.unwrap_or(if input.is_float() {
        input
    } else {
        DType::Int64
    })
}

/// `sum(x, dim=None|dims, keepdim, dtype=)`: bool/int inputs sum to int64.
pub fn sum(
    t: &Tensor,
    dims: Option<&[i64]>,
    keepdim: bool,
    dtype: Option<DType>,
) -> Result<Tensor> {
    sum_or_mean(t, dims, keepdim, sum_dtype(t.dtype(), dtype), false)
}

/// [`sum`] (or, with `mean`, [`mean`]) over `dims` into dtype `out`: column sums where they
/// apply, else lane by lane; an expanded (stride-0) dimension is reduced once and scaled.
fn sum_or_mean(
    t: &Tensor,
    dims: Option<&[i64]>,
    keepdim: bool,
    out: DType,
    mean: bool,
) -> Result<Tensor> {
    let mask = reduced_mask(dims, t.dim())?;
    let lanes = |t: &Tensor| {
        if let Some(r) = column_sums(t, &mask, keepdim, out, mean) {
            return r;
        }
        if mean {
            mean_lanes(t, &mask, keepdim, out)
        } else {
            sum_lanes(t, &mask, keepdim, out)
        }
    };
    if mean {
        reduce_unexpanded(t, &mask, keepdim, lanes, no_repeat)
    } else {
        reduce_unexpanded(t, &mask, keepdim, lanes, repeat_sum)
    }
}

fn sum_lanes(t: &Tensor, mask: &[bool], keepdim: bool, out: DType) -> Result<Tensor> {
    let mask = mask.to_vec();
    match out {
        DType::Float32 => reduce_lanes::<f32, f32>(t, &mask, keepdim, sum_f32),
        DType::Float64 => reduce_lanes::<f64, f64>(t, &mask, keepdim, sum_f64),
        DType::Int32 => reduce_lanes::<i32, i32>(t, &mask, keepdim, |v| {
            v.iter().fold(0i32, |a, &b| a.wrapping_add(b))
        }),
        DType::Int64 => reduce_lanes::<i64, i64>(t, &mask, keepdim, |v| {
            v.iter().fold(0i64, |a, &b| a.wrapping_add(b))
        }),
        DType::Bool => reduce_lanes::<bool, bool>(t, &mask, keepdim, |v| v.iter().any(|&b| b)),
    }
}

/// Sums (or means) over a block of dims followed by kept dims, of a contiguous float tensor
/// already of the output dtype — `x.sum(0)` of a matrix: the input is `outer × red × inner`
/// and each output column accumulates whole rows of `inner` values, vectorized along the row,
/// instead of gathering every strided lane first. f32 accumulates in f64 row by row; f64 sums
/// rows pairwise (blocks of 8 rows). Columns are cut into fixed chunks of 256, spread over the
/// pool for large inputs (the result does not depend on the thread count). `None` when the
/// layout does not fit (the lane path handles it).
fn column_sums(
    t: &Tensor,
    mask: &[bool],
    keepdim: bool,
    out: DType,
    mean: bool,
) -> Option<Result<Tensor>> {
    let rank = t.dim();
    let first = mask.iter().position(|&m| m)?;
    let last = mask.iter().rposition(|&m| m)?;
    if last + 1 == rank || mask[first..=last].iter().any(|&m| !m) {
        return None;
    }
    if !out.is_float() || t.dtype() != out || !t.is_contiguous() || t.numel() == 0 {
        return None;
    }
    let shape = t.shape();
    let outer: usize = shape[..first].iter().product();
    let red: usize = shape[first..=last].iter().product();
    let inner: usize = shape[last + 1..].iter().product();
    let oshape = out_shape(shape, mask, keepdim);
    Some(match out {
        DType::Float32 => t
            .with_view::<f32, Option<Vec<f32>>>(|v| {
                let s = v.as_slice()?;
                let sums = column_sums_of(s, outer, red, inner, add_rows_f32);
                Some(
                    sums.into_iter()
                        .map(|x| {
                            if mean {
                                x as f32 / red as f32
                            } else {
                                x as f32
                            }
                        })
                        .collect(),
                )
            })
            .flatten()
            .map(|v| Tensor::from_vec(v, &oshape))?,
        _ => t
            .with_view::<f64, Option<Vec<f64>>>(|v| {
                let s = v.as_slice()?;
                let sums = column_sums_of(s, outer, red, inner, add_rows_f64);
                Some(
                    sums.into_iter()
                        .map(|x| if mean { x / red as f64 } else { x })
                        .collect(),
                )
            })
            .flatten()
            .map(|v| Tensor::from_vec(v, &oshape))?,
    })
}

const COLUMN_CHUNK: usize = 256;

/// The `outer × inner` column sums of `s` (`outer × red × inner`), in f64.
fn column_sums_of<T: Sync>(
    s: &[T],
    outer: usize,
    red: usize,
    inner: usize,
    add_rows: fn(&mut [f64], &[T], usize, usize),
) -> Vec<f64> {
    let mut out = vec![0f64; outer * inner];
    // Task `t`: columns `c·COLUMN_CHUNK ..` of output row `o` (`t = o·per_row + c`).
    let per_row = inner.div_ceil(COLUMN_CHUNK);
    let tasks = outer * per_row;
    let base = par::SyncPtr(out.as_mut_ptr());
    let run = |t: usize| {
        let (o, j0) = (t / per_row, (t % per_row) * COLUMN_CHUNK);
        let w = COLUMN_CHUNK.min(inner - j0);
        // SAFETY: `o·inner + j0 .. + w` is in `out` and belongs to task `t` alone.
        let acc = unsafe { std::slice::from_raw_parts_mut(base.get().add(o * inner + j0), w) };
        add_rows(acc, &s[o * red * inner + j0..], red, inner);
    };
    if s.len() >= PAR_MIN && tasks > 1 && vmath::num_threads() > 1 {
        par::for_each(tasks, run);
    } else {
        (0..tasks).for_each(run);
    }
    out
}

#[inline(always)]
fn add_row_f32_body(acc: &mut [f64], row: &[f32]) {
    for (a, &x) in acc.iter_mut().zip(row) {
        *a += x as f64;
    }
}

#[inline(always)]
fn add_row_f64_body(acc: &mut [f64], row: &[f64]) {
    for (a, &x) in acc.iter_mut().zip(row) {
        *a += x;
    }
}

multiversion_fn!(fn add_row_f32(acc: &mut [f64], row: &[f32]) -> () => add_row_f32_body);
multiversion_fn!(fn add_row_f64(acc: &mut [f64], row: &[f64]) -> () => add_row_f64_body);

/// `acc[j] += Σ_r block[r * stride + j]` over `rows` rows, f32 rows added in order in f64.
fn add_rows_f32(acc: &mut [f64], block: &[f32], rows: usize, stride: usize) {
    let w = acc.len();
    for r in 0..rows {
        add_row_f32(acc, &block[r * stride..r * stride + w]);
    }
}

/// f64 rows summed pairwise: halves recursed down to blocks of 8 rows added in order.
fn add_rows_f64(acc: &mut [f64], block: &[f64], rows: usize, stride: usize) {
    let w = acc.len();
    if rows <= 8 {
        for r in 0..rows {
            add_row_f64(acc, &block[r * stride..r * stride + w]);
        }
        return;
    }
    let half = rows / 2;
    let mut second = vec![0f64; w];
    add_rows_f64(acc, block, half, stride);
    add_rows_f64(&mut second, &block[half * stride..], rows - half, stride);
    add_row_f64(acc, &second);
}

/// `mean(x, dims, keepdim, dtype=)`: floating inputs only (as PyTorch).
pub fn mean(
    t: &Tensor,
    dims: Option<&[i64]>,
    keepdim: bool,
    dtype: Option<DType>,
) -> Result<Tensor> {
    let out = dtype.unwrap_or(t.dtype());
    if !out.is_float() {
        return Err(RuntimeError::NotImplemented(format!(
            "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: {}",
            out.scalar_type_name()
        )));
    }
    sum_or_mean(t, dims, keepdim, out, true)
}

fn mean_lanes(t: &Tensor, mask: &[bool], keepdim: bool, out: DType) -> Result<Tensor> {
    match out {
        // PyTorch's mean is `sum(...).div_(n)` and NumPy's `true_divide(sum, n)`, both in the
        // output dtype: the float32 sum is rounded to float32 before the division, as there.
        DType::Float32 => {
            reduce_lanes::<f32, f32>(t, mask, keepdim, |v| sum_f32(v) / v.len() as f32)
        }
        _ => reduce_lanes::<f64, f64>(t, mask, keepdim, |v| sum_f64(v) / v.len() as f64),
    }
}

/// `prod(x, dim=None|d, keepdim, dtype=)`.
pub fn prod(
    t: &Tensor,
    dims: Option<&[i64]>,
    keepdim: bool,
    dtype: Option<DType>,
) -> Result<Tensor> {
    let mask = reduced_mask(dims, t.dim())?;
    match sum_dtype(t.dtype(), dtype) {
        DType::Float32 => {
            reduce_lanes::<f32, f32>(t, &mask, keepdim, |v| vmath::prod_f32(v) as f32)
        }
        DType::Float64 => reduce_lanes::<f64, f64>(t, &mask, keepdim, vmath::prod_f64),
        DType::Int32 => reduce_lanes::<i32, i32>(t, &mask, keepdim, |v| {
            v.iter().fold(1i32, |a, &b| a.wrapping_mul(b))
        }),
        DType::Int64 => reduce_lanes::<i64, i64>(t, &mask, keepdim, |v| {
            v.iter().fold(1i64, |a, &b| a.wrapping_mul(b))
        }),
        DType::Bool => reduce_lanes::<bool, bool>(t, &mask, keepdim, |v| v.iter().all(|&b| b)),
    }
}

/// NaN-propagating max/min of a non-empty lane; returns (value, first index).
fn arg_extreme<T: Element>(v: &[T], max: bool) -> (T, usize) {
    let mut best = v[0];
    let mut bi = 0;
    if best.is_nan_elem() {
        return (best, 0);
    }
    for (i, &x) in v.iter().enumerate().skip(1) {
        if x.is_nan_elem() {
            return (x, i);
        }
        if (max && x > best) || (!max && x < best) {
            best = x;
            bi = i;
        }
    }
    (best, bi)
}

#[inline(always)]
fn max_f64_body(v: &[f64]) -> f64 {
    fast_extreme(v, true)
}
#[inline(always)]
fn min_f64_body(v: &[f64]) -> f64 {
    fast_extreme(v, false)
}

/// NaN-propagating max of a non-empty float32 lane: [`extreme_by`] with 32 running extremes
/// (eight, as the other types use, kept the loop at one `vmaxps` chain per 8 elements: about
/// 4 elements per cycle), written out for AVX-512 and AVX2 (the same picks in the same lanes).
pub(crate) fn max_f32(v: &[f32]) -> f32 {
    extreme_f32(v, true)
}

pub(crate) fn min_f32(v: &[f32]) -> f32 {
    extreme_f32(v, false)
}

/// Lanes of the float32 max/min: two AVX-512 (four AVX2) registers.
const F32_EXTREME_LANES: usize = 32;

fn extreme_f32(v: &[f32], max: bool) -> f32 {
    #[cfg(target_arch = "x86_64")]
    match vmath::isa() {
        // SAFETY: `isa()` reports only features the running CPU has.
        vmath::Isa::Avx512 => return unsafe { extreme_f32_avx512(v, max) },
        // SAFETY: as above.
        vmath::Isa::Avx2Fma => return unsafe { extreme_f32_avx2(v, max) },
        vmath::Isa::Scalar => {}
    }
    if max {
        extreme_by::<F32_EXTREME_LANES, f32>(v, |best, x| if x > best { x } else { best })
    } else {
        extreme_by::<F32_EXTREME_LANES, f32>(v, |best, x| if x < best { x } else { best })
    }
}

/// [`extreme_f32`] on AVX-512: lanes 0-15 and 16-31 in two registers. `vmaxps(x, best)` is
/// `x > best ? x : best` and `vminps(x, best)` is `x < best ? x : best` (`best` when either
/// is NaN or both are zeros), exactly the picks; NaNs are found by one unordered compare of the
/// two loads.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl,avx2,fma")]
unsafe fn extreme_f32_avx512(v: &[f32], max: bool) -> f32 {
    use std::arch::x86_64::*;
    const L: usize = F32_EXTREME_LANES;
    let blocks = v.len() / L;
    let p = v.as_ptr();
    let init = _mm512_set1_ps(v[0]);
    let (mut a0, mut a1) = (init, init);
    let mut nan: __mmask16 = 0;
    macro_rules! run {
        ($pick:ident) => {
            for b in 0..blocks {
                // SAFETY: block `b` is inside `v`.
                let (x0, x1) = unsafe {
                    (
                        _mm512_loadu_ps(p.add(L * b)),
                        _mm512_loadu_ps(p.add(L * b + 16)),
                    )
                };
                nan |= _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(x0, x1);
                a0 = $pick(x0, a0);
                a1 = $pick(x1, a1);
            }
        };
    }
    if max {
        run!(_mm512_max_ps);
    } else {
        run!(_mm512_min_ps);
    }
    let mut acc = [0f32; L];
    // SAFETY: `acc` holds 32 floats.
    unsafe {
        _mm512_storeu_ps(acc.as_mut_ptr(), a0);
        _mm512_storeu_ps(acc.as_mut_ptr().add(16), a1);
    }
    extreme_finish(v, &acc, nan != 0, blocks * L, max)
}

/// [`extreme_f32`] on AVX2: lanes 8r..8r+8 in register r.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn extreme_f32_avx2(v: &[f32], max: bool) -> f32 {
    use std::arch::x86_64::*;
    const L: usize = F32_EXTREME_LANES;
    let blocks = v.len() / L;
    let p = v.as_ptr();
    let mut a = [_mm256_set1_ps(v[0]); 4];
    let mut nan = _mm256_setzero_ps();
    macro_rules! run {
        ($pick:ident) => {
            for b in 0..blocks {
                // SAFETY: block `b` is inside `v`.
                let x: [__m256; 4] =
                    std::array::from_fn(|r| unsafe { _mm256_loadu_ps(p.add(L * b + 8 * r)) });
                let n01 = _mm256_cmp_ps::<_CMP_UNORD_Q>(x[0], x[1]);
                let n23 = _mm256_cmp_ps::<_CMP_UNORD_Q>(x[2], x[3]);
                nan = _mm256_or_ps(nan, _mm256_or_ps(n01, n23));
                for r in 0..4 {
                    a[r] = $pick(x[r], a[r]);
                }
            }
        };
    }
    if max {
        run!(_mm256_max_ps);
    } else {
        run!(_mm256_min_ps);
    }
    let mut acc = [0f32; L];
    for (r, x) in a.iter().enumerate() {
        // SAFETY: `acc[8r..8r + 8]` is in the array.
        unsafe { _mm256_storeu_ps(acc.as_mut_ptr().add(8 * r), *x) };
    }
    extreme_finish(v, &acc, _mm256_movemask_ps(nan) != 0, blocks * L, max)
}

/// The end of [`extreme_by`] for float32 (`max`: which pick).
fn extreme_finish(v: &[f32], acc: &[f32], nan: bool, done: usize, max: bool) -> f32 {
    if max {
        extreme_rest(v, acc, nan, done, |best, x| if x > best { x } else { best })
    } else {
        extreme_rest(v, acc, nan, done, |best, x| if x < best { x } else { best })
    }
}
multiversion_fn!(pub(crate) fn max_f64(v: &[f64]) -> f64 => max_f64_body);
multiversion_fn!(pub(crate) fn min_f64(v: &[f64]) -> f64 => min_f64_body);

/// NaN-propagating max/min of a non-empty lane, values only: eight independent running
/// extremes and NaN flags in one pass, written as compare-and-select so the compiler turns them
/// into SIMD code (measured 3.5x faster than `f32::max` chains).
#[inline(always)]
fn fast_extreme<T: Element>(v: &[T], max: bool) -> T {
    // Two monomorphic loops, so the direction test is not inside the hot loop.
    if max {
        extreme_by::<8, T>(v, |best: T, x: T| if x > best { x } else { best })
    } else {
        extreme_by::<8, T>(v, |best: T, x: T| if x < best { x } else { best })
    }
}

/// `N` running extremes (element `i` of each block of `N` goes to lane `i`, picked by
/// `pick(best, x)`) and NaN flags in one pass; then [`extreme_rest`].
#[inline(always)]
fn extreme_by<const N: usize, T: Element>(v: &[T], pick: impl Fn(T, T) -> T) -> T {
    let mut acc = [v[0]; N];
    let mut nan = [false; N];
    let chunks = v.chunks_exact(N);
    for c in chunks {
        for i in 0..N {
            nan[i] |= c[i].is_nan_elem();
            acc[i] = pick(acc[i], c[i]);
        }
    }
    let done = v.len() - v.len() % N;
    extreme_rest(v, &acc, nan.iter().any(|&b| b), done, pick)
}

/// The first NaN of `v` if there is one (`nan`: the blocks before `done` hold one), else the
/// lanes' extremes folded in lane order from `v[0]`, then the elements from `done` on in order.
#[inline(always)]
fn extreme_rest<T: Element>(
    v: &[T],
    acc: &[T],
    nan: bool,
    done: usize,
    pick: impl Fn(T, T) -> T,
) -> T {
    let rest = &v[done..];
    if nan || rest.iter().any(|x| x.is_nan_elem()) || v[0].is_nan_elem() {
        return v.iter().copied().find(|x| x.is_nan_elem()).unwrap_or(v[0]);
    }
    let mut best = acc.iter().copied().fold(v[0], &pick);
    for &x in rest {
        best = pick(best, x);
    }
    best
}

fn check_nonempty_lanes(t: &Tensor, mask: &[bool], name: &str, all: bool) -> Result<()> {
    if all {
        if t.numel() == 0 {
            return Err(RuntimeError::Value(format!(
                "{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument."
            )));
        }
        return Ok(());
    }
    for (d, (&n, &m)) in t.shape().iter().zip(mask).enumerate() {
        if m && n == 0 {
            return Err(RuntimeError::Index(format!(
                "{name}(): Expected reduction dim {d} to have non-zero size."
            )));
        }
    }
    Ok(())
}

/// `amax`/`amin` over `dims` (empty: all), NaN-propagating; `max()`/`min()` without dim too.
pub fn amax(t: &Tensor, dims: &[i64], keepdim: bool) -> Result<Tensor> {
    extreme(t, dims, keepdim, true, "amax")
}

pub fn amin(t: &Tensor, dims: &[i64], keepdim: bool) -> Result<Tensor> {
    extreme(t, dims, keepdim, false, "amin")
}

fn extreme(t: &Tensor, dims: &[i64], keepdim: bool, max: bool, name: &str) -> Result<Tensor> {
    let mask = reduced_mask(Some(dims), t.dim())?;
    if dims.is_empty() && t.numel() == 0 {
        return Err(RuntimeError::Index(format!(
            "{name}(): Expected reduction dim 0 to have non-zero size."
        )));
    }
    check_nonempty_lanes(t, &mask, name, false)?;
    let lanes = |t: &Tensor| match t.dtype() {
        DType::Float32 => reduce_lanes::<f32, f32>(t, &mask, keepdim, |v| lane_extreme(v, max)),
        DType::Float64 => reduce_lanes::<f64, f64>(t, &mask, keepdim, |v| lane_extreme(v, max)),
        _ => {
            with_dtype!(t.dtype(), T => reduce_lanes::<T, T>(t, &mask, keepdim, |v| fast_extreme(v, max)))
        }
    };
    reduce_unexpanded(t, &mask, keepdim, lanes, no_repeat)
}

/// [`FloatLane::extreme`] of a lane, a long one (an all-reduce: `x.abs().max()`) in pieces of
/// `vmath::ELEM_CHUNK` over the thread team, whose extremes are then combined in order: the
/// first NaN still wins, and the pieces are the same for any thread count (one thread runs
/// them in turn), so the result (down to the sign of a zero maximum) does not depend on it.
/// Below `PAR_MIN`, one pass.
fn lane_extreme<T: FloatLane + Send + Sync>(v: &[T], max: bool) -> T {
    if v.len() >= PAR_MIN {
        let c = vmath::ELEM_CHUNK;
        let parts = par::map_collect(v.len().div_ceil(c), |i| {
            T::extreme(&v[i * c..((i + 1) * c).min(v.len())], max)
        });
        return T::extreme(&parts, max);
    }
    T::extreme(v, max)
}

/// `max(x)` / `min(x)` over all elements.
pub fn max_all(t: &Tensor) -> Result<Tensor> {
    check_nonempty_lanes(t, &[], "max", true)?;
    extreme(t, &[], false, true, "max")
}

pub fn min_all(t: &Tensor) -> Result<Tensor> {
    check_nonempty_lanes(t, &[], "min", true)?;
    extreme(t, &[], false, false, "min")
}

/// `torch.max(x, dim, keepdim)` → (values, indices); NaN wins, first occurrence on ties.
pub fn max_dim(t: &Tensor, dim: i64, keepdim: bool) -> Result<(Tensor, Tensor)> {
    extreme_dim(t, dim, keepdim, true, "max")
}

pub fn min_dim(t: &Tensor, dim: i64, keepdim: bool) -> Result<(Tensor, Tensor)> {
    extreme_dim(t, dim, keepdim, false, "min")
}

fn extreme_dim(
    t: &Tensor,
    dim: i64,
    keepdim: bool,
    max: bool,
    name: &str,
) -> Result<(Tensor, Tensor)> {
    let mask = reduced_mask(Some(&[dim]), t.dim())?;
    check_nonempty_lanes(t, &mask, name, false)?;
    if t.dim() == 0 {
        return Ok((
            t.clone_data()?,
            Tensor::scalar_typed(crate::Scalar::Int(0), DType::Int64),
        ));
    }
    with_dtype!(t.dtype(), T => {
        let vals = reduce_lanes::<T, T>(t, &mask, keepdim, |v| arg_extreme(v, max).0)?;
        let idx = reduce_lanes::<T, i64>(t, &mask, keepdim, |v| arg_extreme(v, max).1 as i64)?;
        Ok((vals, idx))
    })
}

/// `argmax(x, dim=None, keepdim)`; over the flattened tensor when `dim` is `None`.
pub fn argmax(t: &Tensor, dim: Option<i64>, keepdim: bool) -> Result<Tensor> {
    arg_reduce(t, dim, keepdim, true)
}

pub fn argmin(t: &Tensor, dim: Option<i64>, keepdim: bool) -> Result<Tensor> {
    arg_reduce(t, dim, keepdim, false)
}

fn arg_reduce(t: &Tensor, dim: Option<i64>, keepdim: bool, max: bool) -> Result<Tensor> {
    let name = if max { "argmax" } else { "argmin" };
    if t.dtype() == DType::Bool {
        return Err(RuntimeError::NotImplemented(format!(
            "{name}(): does not support bool input"
        )));
    }
    match dim {
        Some(d) => {
            let mask = reduced_mask(Some(&[d]), t.dim())?;
            check_nonempty_lanes(t, &mask, name, false)?;
            arg_lanes(t, &mask, keepdim, max)
        }
        None => {
            check_nonempty_lanes(t, &[], name, true)?;
            let mask = vec![true; t.dim()];
            arg_lanes(t, &mask, keepdim, max)
        }
    }
}

fn arg_lanes(t: &Tensor, mask: &[bool], keepdim: bool, max: bool) -> Result<Tensor> {
    match t.dtype() {
        DType::Float32 => {
            reduce_lanes::<f32, i64>(t, mask, keepdim, |v| FloatLane::arg_extreme(v, max) as i64)
        }
        DType::Float64 => {
            reduce_lanes::<f64, i64>(t, mask, keepdim, |v| FloatLane::arg_extreme(v, max) as i64)
        }
        _ => {
            with_dtype!(t.dtype(), T => reduce_lanes::<T, i64>(t, mask, keepdim, |v| arg_extreme(v, max).1 as i64))
        }
    }
}

/// The vectorized lane kernels of the float reductions, per dtype (accumulating in f64).
trait FloatLane: Element {
    fn sum(v: &[Self]) -> f64;
    /// `sum (x - m)^2`.
    fn sqdev(v: &[Self], m: f64) -> f64;
    fn abs_sum(v: &[Self]) -> f64;
    /// NaN-propagating max / min of a non-empty lane.
    fn extreme(v: &[Self], max: bool) -> Self;
    /// `exp(x - m)` of a block into `out` (same length).
    fn exp_shifted_into(v: &[Self], m: Self, out: &mut [Self]);

    /// Index of the first max / min (of the first NaN if there is one), as [`arg_extreme`]:
    /// the vectorized extreme, then a search for it.
    fn arg_extreme(v: &[Self], max: bool) -> usize {
        let m = Self::extreme(v, max);
        if m.is_nan_elem() {
            v.iter().position(|x| x.is_nan_elem()).unwrap_or(0)
        } else {
            v.iter().position(|&x| x == m).unwrap_or(0)
        }
    }

    /// `log(sum exp(x))`, shifted by the max (`0` when it is infinite), in blocks.
    fn logsumexp(v: &[Self]) -> f64 {
        if v.is_empty() {
            return f64::NEG_INFINITY;
        }
        let m = Self::extreme(v, true);
        if m.is_nan_elem() {
            return f64::NAN;
        }
        let m = if m.to_f64().is_infinite() {
            Self::from_f64(0.0)
        } else {
            m
        };
        let mut buf = [Self::default(); 1024];
        let mut s = 0.0;
        for c in v.chunks(1024) {
            let b = &mut buf[..c.len()];
            Self::exp_shifted_into(c, m, b);
            s += Self::sum(b);
        }
        s.ln() + m.to_f64()
    }
}

/// [`FloatLane`] for `$t` from its vectorized kernels.
macro_rules! float_lane {
    ($t:ty, $sum:ident, $sqdev:ident, $abs_sum:ident, $max:ident, $min:ident) => {
        impl FloatLane for $t {
            fn sum(v: &[$t]) -> f64 {
                vmath::$sum(v)
            }
            fn sqdev(v: &[$t], m: f64) -> f64 {
                vmath::$sqdev(v, m)
            }
            fn abs_sum(v: &[$t]) -> f64 {
                vmath::$abs_sum(v)
            }
            fn extreme(v: &[$t], max: bool) -> $t {
                if max { $max(v) } else { $min(v) }
            }
            fn exp_shifted_into(v: &[$t], m: $t, out: &mut [$t]) {
                vmath::map(
                    vmath::Right(vmath::arith::Zip(vmath::arith::Sub), m),
                    v,
                    out,
                );
                vmath::map_inplace(vmath::k::Exp, out);
            }
        }
    };
}

float_lane!(f32, sum_f32, sqdev_f32, abs_sum_f32, max_f32, min_f32);
float_lane!(f64, sum_f64, sqdev_f64, abs_sum_f64, max_f64, min_f64);

/// `all(x)` / `all(x, dim, keepdim)` → bool.
pub fn all(t: &Tensor, dim: Option<i64>, keepdim: bool) -> Result<Tensor> {
    let dims = dim.map(|d| vec![d]);
    let mask = reduced_mask(dims.as_deref(), t.dim())?;
    reduce_lanes::<bool, bool>(t, &mask, keepdim && dim.is_some(), |v| v.iter().all(|&b| b))
}

pub fn any(t: &Tensor, dim: Option<i64>, keepdim: bool) -> Result<Tensor> {
    let dims = dim.map(|d| vec![d]);
    let mask = reduced_mask(dims.as_deref(), t.dim())?;
    reduce_lanes::<bool, bool>(t, &mask, keepdim && dim.is_some(), |v| v.iter().any(|&b| b))
}

fn require_float_var(t: &Tensor) -> Result<()> {
    if t.dtype().is_float() {
        Ok(())
    } else {
        Err(RuntimeError::NotImplemented(
            "std and var only support floating point and complex dtypes".into(),
        ))
    }
}

/// Two-pass variance of a lane in f64 (mean, then the sum of squared deviations; both sums
/// vectorized and pairwise/f64-accumulated like `sum`).
fn var_lane<T: FloatLane>(v: &[T], correction: f64) -> f64 {
    let n = v.len() as f64;
    let m = T::sum(v) / n;
    T::sqdev(v, m) / (n - correction).max(0.0)
}

fn var_std(
    t: &Tensor,
    dims: Option<&[i64]>,
    correction: f64,
    keepdim: bool,
    std: bool,
) -> Result<Tensor> {
    require_float_var(t)?;
    let mask = reduced_mask(dims, t.dim())?;
    let f = move |v: f64| if std { v.sqrt() } else { v };
    match t.dtype() {
        DType::Float32 => {
            reduce_lanes::<f32, f32>(t, &mask, keepdim, |v| f(var_lane(v, correction)) as f32)
        }
        _ => reduce_lanes::<f64, f64>(t, &mask, keepdim, |v| f(var_lane(v, correction))),
    }
}

/// `var(x, dims, correction=1, keepdim)` (`unbiased=True` is correction 1).
pub fn var(t: &Tensor, dims: Option<&[i64]>, correction: f64, keepdim: bool) -> Result<Tensor> {
    var_std(t, dims, correction, keepdim, false)
}

/// `std(x, dims, correction=1, keepdim)`.
pub fn std(t: &Tensor, dims: Option<&[i64]>, correction: f64, keepdim: bool) -> Result<Tensor> {
    var_std(t, dims, correction, keepdim, true)
}

/// `norm(x, p, dims, keepdim)`: the vector p-norm (p = 2, 1, inf, -inf, 0 or any real).
pub fn norm(t: &Tensor, p: f64, dims: Option<&[i64]>, keepdim: bool) -> Result<Tensor> {
    if !t.dtype().is_float() {
        return Err(RuntimeError::NotImplemented(format!(
            "linalg.vector_norm: Expected a floating point or complex tensor as input. Got {}",
            t.dtype().scalar_type_name()
        )));
    }
    let mask = reduced_mask(dims, t.dim())?;
    match t.dtype() {
        DType::Float32 => {
            reduce_lanes::<f32, f32>(t, &mask, keepdim, move |v| norm_lane(v, p) as f32)
        }
        _ => reduce_lanes::<f64, f64>(t, &mask, keepdim, move |v| norm_lane(v, p)),
    }
}

/// The p-norm of a lane in f64: p = 2 and 1 vectorized, the others by a fold.
fn norm_lane<T: FloatLane>(v: &[T], p: f64) -> f64 {
    if p == 2.0 {
        T::sqdev(v, 0.0).sqrt()
    } else if p == 1.0 {
        T::abs_sum(v)
    } else if p == f64::INFINITY {
        v.iter().fold(0.0, |a: f64, x| {
            let x = x.to_f64();
            if x.is_nan() || a.is_nan() {
                f64::NAN
            } else {
                a.max(x.abs())
            }
        })
    } else if p == f64::NEG_INFINITY {
        v.iter().fold(f64::INFINITY, |a: f64, x| {
            let x = x.to_f64();
            if x.is_nan() || a.is_nan() {
                f64::NAN
            } else {
                a.min(x.abs())
            }
        })
    } else if p == 0.0 {
        v.iter().filter(|x| x.to_f64() != 0.0).count() as f64
    } else {
        v.iter()
            .map(|x| x.to_f64().abs().powf(p))
            .sum::<f64>()
            .powf(1.0 / p)
    }
}

/// `logsumexp(x, dims, keepdim)`: stable; int inputs give the default float dtype.
pub fn logsumexp(t: &Tensor, dims: &[i64], keepdim: bool) -> Result<Tensor> {
    let out = if t.dtype().is_float() {
        t.dtype()
    } else {
        DEFAULT_FLOAT
    };
    let mask = reduced_mask(Some(dims), t.dim())?;
    let lanes = |t: &Tensor| logsumexp_lanes(t, &mask, keepdim, out);
    let repeat = |r: Tensor, n: usize| super::add_scalar(&r, Scalar::Float((n as f64).ln()));
    reduce_unexpanded(t, &mask, keepdim, lanes, repeat)
}

fn logsumexp_lanes(t: &Tensor, mask: &[bool], keepdim: bool, out: DType) -> Result<Tensor> {
    match out {
        DType::Float32 => {
            reduce_lanes::<f32, f32>(t, mask, keepdim, |v| FloatLane::logsumexp(v) as f32)
        }
        _ => reduce_lanes::<f64, f64>(t, mask, keepdim, FloatLane::logsumexp),
    }
}

// ------------------------------------------------------------------------------- scans

/// Applies `f` to every lane along `dim` (in place on a contiguous copy laid out with `dim`
/// last), and returns a tensor of the input's shape.
fn scan_lanes<T: Element>(t: &Tensor, dim: i64, f: impl Fn(&mut [T]) + Sync) -> Result<Tensor> {
    let rank = t.dim();
    if rank == 0 {
        let mut v = t.to_vec::<T>();
        f(&mut v);
        return Tensor::from_vec(v, &[]);
    }
    let d = wrap_dim(dim, rank)?;
    check_alloc(t.shape(), T::DTYPE)?;
    let last = rank - 1;
    let moved = t.transpose(d as i64, last as i64)?;
    let mut data = moved.to_vec::<T>();
    let n = t.shape()[d];
    if n > 0 {
        if data.len() >= PAR_MIN && data.len() > n && vmath::num_threads() > 1 {
            // Tasks of whole lanes, about `PAR_CHUNK` elements each.
            let lanes = (vmath::PAR_CHUNK / n).max(1);
            par::for_each_chunk_mut(&mut data, lanes * n, |_, piece| {
                piece.chunks_exact_mut(n).for_each(&f)
            });
        } else {
            for lane in data.chunks_exact_mut(n) {
                f(lane);
            }
        }
    }
    let r = Tensor::from_vec(data, moved.shape())?;
    if d == last {
        Ok(r)
    } else {
        r.transpose(d as i64, last as i64)?.contiguous()
    }
}

fn require_float_softmax(t: &Tensor, kernel: &str) -> Result<()> {
    if t.dtype().is_float() {
        Ok(())
    } else {
        Err(RuntimeError::not_implemented_for(kernel, t.dtype()))
    }
}

/// `softmax(x, dim, dtype=)`.
pub fn softmax(t: &Tensor, dim: i64, dtype: Option<DType>) -> Result<Tensor> {
    softmax_in(t, dim, dtype, false)
}

/// `log_softmax(x, dim, dtype=)`.
pub fn log_softmax(t: &Tensor, dim: i64, dtype: Option<DType>) -> Result<Tensor> {
    softmax_in(t, dim, dtype, true)
}

/// [`softmax`], or with `log` [`log_softmax`], of `t` converted to `dtype` first.
fn softmax_in(t: &Tensor, dim: i64, dtype: Option<DType>, log: bool) -> Result<Tensor> {
    let t = match dtype {
        Some(d) => t.to_dtype(d)?,
        None => t.clone(),
    };
    let kernel = if log {
        "log_softmax_lastdim_kernel_impl"
    } else {
        "softmax_lastdim_kernel_impl"
    };
    require_float_softmax(&t, kernel)?;
    with_float(&t, dim, log)
}

fn with_float(t: &Tensor, dim: i64, log: bool) -> Result<Tensor> {
    // Rows of a contiguous tensor: read in place, results into a pooled buffer (no copy pass).
    let last = wrap_dim(dim, t.dim()).is_ok_and(|d| d + 1 == t.dim());
    if !log && last && t.is_contiguous() && t.numel() > 0 {
        let r = match t.dtype() {
            DType::Float32 => softmax_rows::<f32>(t),
            DType::Float64 => softmax_rows::<f64>(t),
            _ => None,
        };
        if let Some(r) = r {
            return r;
        }
    }
    // PyTorch's formulation: m = max (NaN-propagating, not clamped to finite values), so an
    // all -inf lane gives NaN (-inf - -inf) and a lane holding +inf gives NaN, as there.
    macro_rules! go {
        ($ty:ty) => {
            scan_lanes::<$ty>(t, dim, |lane| {
                if lane.is_empty() {
                    return;
                }
                let m = <$ty as SoftmaxLane>::max(lane);
                if log {
                    let s: f64 = lane.iter().map(|&x| ((x - m) as f64).exp()).sum();
                    let ls = s.ln() as $ty;
                    lane.iter_mut().for_each(|x| *x = *x - m - ls);
                } else {
                    softmax_exp_lane(lane, m);
                    <$ty as SoftmaxLane>::div_by_sum(lane, lane_sum(lane));
                }
            })
        };
    }
    match t.dtype() {
        DType::Float64 => go!(f64),
        _ => go!(f32),
    }
}

/// `lane[i] = exp(lane[i] - m)`.
trait SoftmaxLane: Sized {
    fn exp_shifted(lane: &mut [Self], m: Self);
    /// `out[i] = exp(x[i] - m)` (the same bits as [`SoftmaxLane::exp_shifted`] in place).
    fn exp_shifted_from(x: &[Self], m: Self, out: &mut [Self]);
    fn sum(lane: &[Self]) -> f64;
    /// The lane's NaN-propagating max ([`fast_extreme`], through the dispatched copy).
    fn max(lane: &[Self]) -> Self;
    /// `lane[i] / (s as Self)`.
    fn div_by_sum(lane: &mut [Self], s: f64);
}

/// Softmax over the last dim of a contiguous float tensor, as [`with_float`]'s lane loop
/// computes it (the same kernels in the same order, so the same bits), reading each row in
/// place and writing its `exp` straight into a pooled output: no copy of the input first.
/// `None` if the tensor is not contiguous of dtype `T`.
fn softmax_rows<T: SoftmaxLane + Element + Send + Sync>(t: &Tensor) -> Option<Result<Tensor>> {
    let n = *t.shape().last()?;
    let total = t.numel();
    if n == 0 {
        return None;
    }
    let mut out = match crate::bufpool::alloc::<T>(total) {
        Ok(v) => v,
        Err(e) => return Some(Err(e)),
    };
    let row = |x: &[T], o: &mut [T]| {
        let m = T::max(x);
        T::exp_shifted_from(x, m, o);
        let s = T::sum(o);
        T::div_by_sum(o, s);
    };
    t.with_slice::<T, ()>(|x| {
        if total >= PAR_MIN && total > n && vmath::num_threads() > 1 {
            // Tasks of whole rows, about `PAR_CHUNK` elements each (as `scan_lanes`).
            let task = (vmath::PAR_CHUNK / n).max(1) * n;
            par::for_each_chunk_mut(&mut out, task, |i, piece| {
                let xs = &x[i * task..i * task + piece.len()];
                for (xl, ol) in xs.chunks_exact(n).zip(piece.chunks_exact_mut(n)) {
                    row(xl, ol);
                }
            });
        } else {
            for (xl, ol) in x.chunks_exact(n).zip(out.chunks_exact_mut(n)) {
                row(xl, ol);
            }
        }
    })?;
    Some(Tensor::from_vec(out, t.shape()))
}

macro_rules! softmax_lane {
    ($t:ty, $sum:expr, $max:path) => {
        impl SoftmaxLane for $t {
            fn exp_shifted(lane: &mut [$t], m: $t) {
                vmath::map_inplace(vmath::Minus(vmath::k::Exp, m), lane);
            }
            fn exp_shifted_from(x: &[$t], m: $t, out: &mut [$t]) {
                vmath::map(vmath::Minus(vmath::k::Exp, m), x, out);
            }
            fn sum(lane: &[$t]) -> f64 {
                $sum(lane)
            }
            fn max(lane: &[$t]) -> $t {
                $max(lane)
            }
            fn div_by_sum(lane: &mut [$t], s: f64) {
                // The dispatched loop (AVX2 division), not a baseline-SSE2 one.
                let div = vmath::Right(vmath::arith::Zip(vmath::arith::Div), s as $t);
                vmath::map_inplace(div, lane);
            }
        }
    };
}
softmax_lane!(f32, sum_f32_wide, max_f32);
softmax_lane!(f64, sum_f64, max_f64);

fn softmax_exp_lane<T: SoftmaxLane>(lane: &mut [T], m: T) {
    T::exp_shifted(lane, m)
}

fn lane_sum<T: SoftmaxLane>(lane: &[T]) -> f64 {
    T::sum(lane)
}

fn sum_f32_wide(v: &[f32]) -> f64 {
    vmath::sum_f32(v)
}

/// cumsum of a contiguous float tensor over a dim that is not the last: the running sums of
/// whole rows (`out[r] = out[r-1] + x[r]` along the `inner` elements that follow the dim),
/// vectorized along the row, instead of transposing the scanned dim last and back. Each column
/// accumulates in f64 in order, as the lane scan does, so the results are the lane scan's bit
/// for bit. `None` when the layout does not fit.
fn column_cumsum(t: &Tensor, dim: i64) -> Option<Result<Tensor>> {
    let rank = t.dim();
    let d = wrap_dim(dim, rank).ok()?;
    if rank == 0 || d + 1 == rank || !t.dtype().is_float() || !t.is_contiguous() {
        return None;
    }
    let shape = t.shape();
    let (outer, n) = (shape[..d].iter().product::<usize>(), shape[d]);
    let inner: usize = shape[d + 1..].iter().product();
    if outer * n * inner == 0 {
        return None;
    }
    fn scan<T: Element>(s: &[T], outer: usize, n: usize, inner: usize) -> Vec<T> {
        let mut out = Vec::with_capacity(s.len());
        let mut acc = vec![0f64; inner];
        for block in s.chunks_exact(n * inner).take(outer) {
            acc.iter_mut().for_each(|a| *a = 0.0);
            for row in block.chunks_exact(inner) {
                for (a, &x) in acc.iter_mut().zip(row) {
                    *a += x.to_f64();
                }
                out.extend(acc.iter().map(|&a| T::from_f64(a)));
            }
        }
        out
    }
    match t.dtype() {
        DType::Float32 => t
            .with_view::<f32, Option<Vec<f32>>>(|v| Some(scan(v.as_slice()?, outer, n, inner)))
            .flatten()
            .map(|v| Tensor::from_vec(v, shape)),
        _ => t
            .with_view::<f64, Option<Vec<f64>>>(|v| Some(scan(v.as_slice()?, outer, n, inner)))
            .flatten()
            .map(|v| Tensor::from_vec(v, shape)),
    }
}

/// `cumsum(x, dim, dtype=)`: bool/int inputs accumulate in int64.
pub fn cumsum(t: &Tensor, dim: i64, dtype: Option<DType>) -> Result<Tensor> {
    let out = sum_dtype(t.dtype(), dtype);
    let t = t.to_dtype(out)?;
    if let Some(r) = column_cumsum(&t, dim) {
        return r;
    }
    match out {
        DType::Float32 => scan_lanes::<f32>(&t, dim, |l| {
            let mut acc = 0f64;
            l.iter_mut().for_each(|x| {
                acc += *x as f64;
                *x = acc as f32
            })
        }),
        DType::Float64 => running(&t, dim, 0f64, |a, b| a + b),
        DType::Int32 => running(&t, dim, 0i32, i32::wrapping_add),
        DType::Int64 => running(&t, dim, 0i64, i64::wrapping_add),
        DType::Bool => running(&t, dim, false, |a, b| a | b),
    }
}

/// `cumprod(x, dim, dtype=)`.
pub fn cumprod(t: &Tensor, dim: i64, dtype: Option<DType>) -> Result<Tensor> {
    let out = sum_dtype(t.dtype(), dtype);
    let t = t.to_dtype(out)?;
    match out {
        DType::Float32 => running(&t, dim, 1f32, |a, b| a * b),
        DType::Float64 => running(&t, dim, 1f64, |a, b| a * b),
        DType::Int32 => running(&t, dim, 1i32, i32::wrapping_mul),
        DType::Int64 => running(&t, dim, 1i64, i64::wrapping_mul),
        DType::Bool => running(&t, dim, true, |a, b| a & b),
    }
}

/// The running `op` of each lane along `dim`, starting from `init` (in the element type).
fn running<T: Element>(
    t: &Tensor,
    dim: i64,
    init: T,
    op: impl Fn(T, T) -> T + Copy + Sync,
) -> Result<Tensor> {
    scan_lanes::<T>(t, dim, move |l| {
        let mut acc = init;
        l.iter_mut().for_each(|x| {
            acc = op(acc, *x);
            *x = acc
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The written-out float32 max/min (AVX-512, AVX2) pick what the portable 32-lane
    /// [`extreme_by`] picks, bit for bit: zeros of both signs in every order, NaNs of two
    /// payloads early and late, infinities, every length up to 200 and some long ones.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn written_out_f32_extremes_match_the_portable_definition() {
        let portable = |v: &[f32], max: bool| {
            if max {
                extreme_by::<F32_EXTREME_LANES, f32>(v, |b, x| if x > b { x } else { b })
            } else {
                extreme_by::<F32_EXTREME_LANES, f32>(v, |b, x| if x < b { x } else { b })
            }
        };
        let nan2 = f32::from_bits(0x7fc0_1234);
        let pool = [
            0.0f32,
            -0.0,
            1.5,
            -1.5,
            3.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            -7.0,
            1e-40,
        ];
        let mut cases: Vec<Vec<f32>> = Vec::new();
        for n in (1..=200).chain([1000, 4099]) {
            let v: Vec<f32> = (0..n).map(|i| pool[(i * 7 + n) % pool.len()]).collect();
            // (The first element is not a zero: the lanes are folded from it, so the sign of
            // a zero extreme then comes from the lanes.)
            let zeros: Vec<f32> = (0..n)
                .map(|i| match (i, (i * 13 + n) % 3) {
                    (0, _) => 0.5 - (n % 2) as f32,
                    (_, 0) => -0.0,
                    _ => 0.0,
                })
                .collect();
            let mut nan = v.clone();
            nan[(n * 5 / 7) % n] = f32::NAN;
            nan[n - 1] = nan2;
            let mut late = v.clone();
            late[n - 1] = nan2;
            cases.extend([v, zeros, nan, late]);
        }
        let have512 = vmath::isa() == vmath::Isa::Avx512;
        let have2 = is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma");
        for v in &cases {
            for max in [true, false] {
                let want = portable(v, max).to_bits();
                if have512 {
                    // SAFETY: the CPU has AVX-512.
                    let got = unsafe { extreme_f32_avx512(v, max) };
                    assert_eq!(got.to_bits(), want, "avx512 max={max} {v:?}");
                }
                if have2 {
                    // SAFETY: the CPU has AVX2 and FMA.
                    let got = unsafe { extreme_f32_avx2(v, max) };
                    assert_eq!(got.to_bits(), want, "avx2 max={max} {v:?}");
                }
            }
        }
    }

    fn m23() -> Tensor {
        Tensor::from_vec(vec![1.0f32, 5.0, 3.0, 4.0, 2.0, 6.0], &[2, 3]).unwrap()
    }

    /// Hardening item 10: reducing an expanded view reads only its storage. At n = 10^5 the view
    /// has 4·10^10 elements (160 GB as f32); materializing it would fail the allocation check.
    #[test]
    fn reducing_a_broadcast_view_does_not_materialize_it() {
        let n = 100_000i64;
        let x =
            Tensor::from_vec(vec![1.5f32, -2.0, 0.25, 4.0, 9.0, 9.0, 9.0, 9.0], &[2, 4]).unwrap();
        let v = x.select(0, 0).unwrap().expand(&[n, n, 4]).unwrap();
        let s = sum(&v, None, false, None).unwrap();
        assert_eq!(s.to_vec::<f32>(), vec![3.75 * 1e10]);
        assert_eq!(
            mean(&v, None, false, None).unwrap().to_vec::<f32>(),
            vec![0.9375]
        );
        assert_eq!(amax(&v, &[], false).unwrap().to_vec::<f32>(), vec![4.0]);
        assert_eq!(min_all(&v).unwrap().to_vec::<f32>(), vec![-2.0]);
        let l = logsumexp(&v, &[0, 1, 2], false).unwrap().to_vec::<f32>()[0];
        let want = (1.5f64.exp() + (-2f64).exp() + 0.25f64.exp() + 4f64.exp()).ln() + 1e10f64.ln();
        assert!((l as f64 - want).abs() < 1e-5 * want, "{l} vs {want}");
        let i = Tensor::from_vec(vec![3i64, -1], &[2])
            .unwrap()
            .expand(&[n, 2])
            .unwrap();
        assert_eq!(
            sum(&i, None, false, None).unwrap().to_vec::<i64>(),
            vec![2 * n]
        );
    }

    /// Kept expanded dims come back broadcast into a fresh result equal to the materialized one.
    #[test]
    fn partial_reductions_of_broadcast_views_match_materialized_ones() {
        let x =
            Tensor::from_vec((0..12).map(|i| i as f64 * 0.5 - 2.0).collect(), &[3, 1, 4]).unwrap();
        let v = x.expand(&[3, 5, 4]).unwrap();
        let dense = v.contiguous().unwrap();
        for dims in [vec![-1i64], vec![1], vec![0, 2], vec![0, 1]] {
            for keep in [false, true] {
                let a = sum(&v, Some(&dims), keep, None).unwrap();
                let b = sum(&dense, Some(&dims), keep, None).unwrap();
                assert_eq!(a.shape(), b.shape());
                assert_eq!(a.to_vec::<f64>(), b.to_vec::<f64>(), "sum {dims:?} {keep}");
                assert!(a.is_contiguous());
                let a = amax(&v, &dims, keep).unwrap();
                let b = amax(&dense, &dims, keep).unwrap();
                assert_eq!(a.to_vec::<f64>(), b.to_vec::<f64>(), "amax {dims:?} {keep}");
                let a = mean(&v, Some(&dims), keep, None).unwrap().to_vec::<f64>();
                let b = mean(&dense, Some(&dims), keep, None)
                    .unwrap()
                    .to_vec::<f64>();
                for (p, q) in a.iter().zip(&b) {
                    assert!((p - q).abs() < 1e-12, "mean {dims:?} {keep}");
                }
            }
        }
    }

    /// The vectorized float lane kernels (var/std, norm, logsumexp, prod, argmax/argmin) agree
    /// with naive f64 formulas on long and short, strided and contiguous lanes, NaN included.
    #[test]
    fn vectorized_lane_reductions_match_naive_formulas() {
        let n = 3 * 1037;
        let v: Vec<f64> = (0..n)
            .map(|i| ((i * 7919) % 1000) as f64 / 250.0 - 1.9)
            .collect();
        let close = |a: f64, b: f64, tol: f64| (a - b).abs() <= tol * b.abs().max(1e-30);
        for f32_input in [true, false] {
            let t = Tensor::from_vec(v.clone(), &[3, 1037]).unwrap();
            let t = if f32_input {
                t.to_dtype(DType::Float32).unwrap()
            } else {
                t
            };
            let tol = if f32_input { 2e-6 } else { 1e-12 };
            let vals: Vec<f64> = t.to_dtype(DType::Float64).unwrap().to_vec::<f64>();
            for (dim, lanes) in [(1i64, 3usize), (0, 1037)] {
                let lane = |j: usize| -> Vec<f64> {
                    if dim == 1 {
                        vals[j * 1037..(j + 1) * 1037].to_vec()
                    } else {
                        (0..3).map(|r| vals[r * 1037 + j]).collect()
                    }
                };
                let get = |r: Tensor| r.to_dtype(DType::Float64).unwrap().to_vec::<f64>();
                let var_r = get(var(&t, Some(&[dim]), 1.0, false).unwrap());
                let std_r = get(std(&t, Some(&[dim]), 0.0, false).unwrap());
                let n2 = get(norm(&t, 2.0, Some(&[dim]), false).unwrap());
                let n1 = get(norm(&t, 1.0, Some(&[dim]), false).unwrap());
                let lse = get(logsumexp(&t, &[dim], false).unwrap());
                let pr = get(prod(&t, Some(&[dim]), false, None).unwrap());
                let am = argmax(&t, Some(dim), false).unwrap().to_vec::<i64>();
                let an = argmin(&t, Some(dim), false).unwrap().to_vec::<i64>();
                for j in 0..lanes {
                    let l = lane(j);
                    let k = l.len() as f64;
                    let m = l.iter().sum::<f64>() / k;
                    let ss: f64 = l.iter().map(|x| (x - m) * (x - m)).sum();
                    assert!(close(var_r[j], ss / (k - 1.0), tol), "var {dim} {j}");
                    assert!(close(std_r[j], (ss / k).sqrt(), tol), "std {dim} {j}");
                    let sq: f64 = l.iter().map(|x| x * x).sum();
                    assert!(close(n2[j], sq.sqrt(), tol), "norm2 {dim} {j}");
                    let ab: f64 = l.iter().map(|x| x.abs()).sum();
                    assert!(close(n1[j], ab, tol), "norm1 {dim} {j}");
                    let mx = l.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
                    let se: f64 = l.iter().map(|x| (x - mx).exp()).sum();
                    let want = se.ln() + mx;
                    assert!(
                        (lse[j] - want).abs() <= tol * want.abs().max(1.0),
                        "lse {dim} {j}"
                    );
                    let p: f64 = l.iter().product();
                    assert!(close(pr[j], p, tol * 10.0), "prod {dim} {j}");
                    let first = |want: f64| l.iter().position(|&x| x == want).unwrap() as i64;
                    let mn = l.iter().cloned().fold(f64::INFINITY, f64::min);
                    assert_eq!(am[j], first(mx), "argmax {dim} {j}");
                    assert_eq!(an[j], first(mn), "argmin {dim} {j}");
                }
            }
        }
        let x = Tensor::from_vec(vec![1.0f32, f32::NAN, 7.0, f32::NAN, -1.0], &[5]).unwrap();
        assert_eq!(argmax(&x, None, false).unwrap().to_vec::<i64>(), vec![1]);
        assert_eq!(argmin(&x, Some(0), false).unwrap().to_vec::<i64>(), vec![1]);
        assert!(logsumexp(&x, &[0], false).unwrap().to_vec::<f32>()[0].is_nan());
        let inf = Tensor::from_vec(vec![f32::NEG_INFINITY; 3], &[3]).unwrap();
        assert_eq!(
            logsumexp(&inf, &[0], false).unwrap().to_vec::<f32>(),
            vec![f32::NEG_INFINITY]
        );
    }

    /// Sums and means over leading or middle dims of contiguous tensors (the row-accumulating
    /// column path) agree with the gathered-lane path and with f64 sums; threaded sizes too.
    #[test]
    fn column_sums_match_lane_sums() {
        for (shape, dims) in [
            (vec![7usize, 300, 5], vec![1i64]),
            (vec![7, 300, 5], vec![0, 1]),
            (vec![1000, 700], vec![0]),
            (vec![3, 40_000, 3], vec![1]),
        ] {
            let n: usize = shape.iter().product();
            let v: Vec<f64> = (0..n)
                .map(|i| ((i * 7919) % 1000) as f64 / 300.0 - 1.2)
                .collect();
            for dt in [DType::Float32, DType::Float64] {
                let t = Tensor::from_vec(v.clone(), &shape)
                    .unwrap()
                    .to_dtype(dt)
                    .unwrap();
                // The same values through the gathered-lane path: a non-contiguous view.
                let rank = shape.len() as i64;
                let tt = t.transpose(0, rank - 1).unwrap();
                let dims_t: Vec<i64> = dims
                    .iter()
                    .map(|&d| {
                        if d == 0 {
                            rank - 1
                        } else if d == rank - 1 {
                            0
                        } else {
                            d
                        }
                    })
                    .collect();
                let tol = if dt == DType::Float32 { 2e-6 } else { 1e-13 };
                for keep in [false, true] {
                    for m in [false, true] {
                        let (a, b) = if m {
                            (
                                mean(&t, Some(&dims), keep, None).unwrap(),
                                mean(&tt, Some(&dims_t), keep, None).unwrap(),
                            )
                        } else {
                            (
                                sum(&t, Some(&dims), keep, None).unwrap(),
                                sum(&tt, Some(&dims_t), keep, None).unwrap(),
                            )
                        };
                        let b = if b.dim() >= 2 {
                            b.transpose(0, b.dim() as i64 - 1).unwrap()
                        } else {
                            b
                        };
                        assert_eq!(a.dtype(), dt);
                        let (a, b) = (a.to_vec::<f64>(), b.contiguous().unwrap().to_vec::<f64>());
                        assert_eq!(a.len(), b.len(), "{shape:?} {dims:?}");
                        for (x, y) in a.iter().zip(&b) {
                            assert!(
                                (x - y).abs() <= tol * y.abs().max(1.0),
                                "{shape:?} {dims:?} {dt:?} mean={m}: {x} vs {y}"
                            );
                        }
                    }
                }
            }
        }
    }

    /// cumsum over a leading dim (row scan) equals the lane scan of the transposed tensor bit
    /// for bit.
    #[test]
    fn column_cumsum_matches_the_lane_scan() {
        let v: Vec<f64> = (0..4 * 37 * 6)
            .map(|i| ((i * 7919) % 1000) as f64 / 70.0 - 6.0)
            .collect();
        for dt in [DType::Float32, DType::Float64] {
            let t = Tensor::from_vec(v.clone(), &[4, 37, 6])
                .unwrap()
                .to_dtype(dt)
                .unwrap();
            for dim in [0i64, 1, -2] {
                let a = cumsum(&t, dim, None).unwrap();
                // The lane path: the same tensor as a non-contiguous view.
                let tt = t.transpose(0, 2).unwrap().contiguous().unwrap();
                let tt = tt.transpose(0, 2).unwrap();
                assert!(!tt.is_contiguous());
                let b = cumsum(&tt, dim, None).unwrap();
                assert_eq!(a.shape(), &[4, 37, 6]);
                assert_eq!(a.to_vec::<f64>(), b.to_vec::<f64>(), "{dt:?} dim {dim}");
            }
        }
    }

    /// Sums of long tensors: repeatable bit for bit, and within f32 rounding of an f64
    /// sequential sum (thread-count independence is tested in vmath).
    #[test]
    fn long_sums_are_deterministic_and_accurate() {
        let n = vmath::PAR_MIN * 3 + 123;
        let v: Vec<f32> = (0..n)
            .map(|i| ((i * 7919) % 1000) as f32 / 100.0 - 4.9)
            .collect();
        let exact: f64 = v.iter().map(|&x| x as f64).sum();
        let t = Tensor::from_slice(&v);
        let s = sum(&t, None, false, None).unwrap().to_vec::<f32>()[0];
        assert!(
            ((s as f64) - exact).abs() <= 1e-6 * exact.abs().max(1.0),
            "{s} vs {exact}"
        );
        let again = sum(&t, None, false, None).unwrap().to_vec::<f32>()[0];
        assert_eq!(s.to_bits(), again.to_bits());
        let rows = t
            .slice(0, Some(0), Some((n / 1000 * 1000) as i64), 1)
            .unwrap();
        let rows = rows.reshape(&[-1, 1000]).unwrap();
        let r = sum(&rows, Some(&[1]), false, None).unwrap().to_vec::<f32>();
        let first: f32 = (v[..1000].iter().map(|&x| x as f64).sum::<f64>()) as f32;
        assert_eq!(r[0], first);
        let m = max_all(&t).unwrap().to_vec::<f32>()[0];
        assert_eq!(m, v.iter().copied().fold(f32::MIN, f32::max));
    }

    /// The max/min of a long lane, computed in pieces (`lane_extreme`): the extreme of all
    /// elements, and with NaNs the first one (its payload tells which).
    #[test]
    fn long_extremes_in_pieces() {
        let n = vmath::PAR_MIN * 3 + 123;
        let mut v: Vec<f32> = (0..n)
            .map(|i| ((i * 7919) % 100_003) as f32 / 100.0 - 500.0)
            .collect();
        let t = Tensor::from_slice(&v);
        let m = max_all(&t).unwrap().to_vec::<f32>()[0];
        assert_eq!(m, v.iter().copied().fold(f32::MIN, f32::max));
        let m = min_all(&t).unwrap().to_vec::<f32>()[0];
        assert_eq!(m, v.iter().copied().fold(f32::MAX, f32::min));
        // Two NaNs with different payloads, in different pieces: the first one is the result.
        let first = f32::from_bits(0x7fc0_0001);
        let second = f32::from_bits(0x7fc0_0002);
        v[vmath::ELEM_CHUNK * 5 + 17] = second;
        v[vmath::ELEM_CHUNK * 2 + 3] = first;
        let t = Tensor::from_slice(&v);
        for r in [max_all(&t), min_all(&t), amax(&t, &[0], false)] {
            assert_eq!(r.unwrap().to_vec::<f32>()[0].to_bits(), first.to_bits());
        }
    }

    /// A float32 mean divides the float32-rounded sum in float32, as PyTorch and NumPy do:
    /// dividing the wider sum and rounding once gives 0.47907197 here, 1 ulp below both.
    #[test]
    fn float32_mean_divides_the_rounded_sum() {
        let x = Tensor::from_slice(&[
            1.477_033_1_f32,
            0.098_254_02,
            -0.159_515_55,
            -0.416_774_33,
            1.396_362_7,
        ]);
        let m = mean(&x, None, false, None).unwrap().to_vec::<f32>()[0];
        assert_eq!(m, 0.479_072_f32);
        assert_ne!(m, 0.479_071_97_f32);
    }

    #[test]
    fn sums_and_keepdim_and_negative_dims() {
        let x = m23();
        assert_eq!(
            sum(&x, None, false, None).unwrap().to_vec::<f32>(),
            vec![21.0]
        );
        let s = sum(&x, Some(&[-1]), true, None).unwrap();
        assert_eq!(s.shape(), &[2, 1]);
        assert_eq!(s.to_vec::<f32>(), vec![9.0, 12.0]);
        let s = sum(&x, Some(&[0]), false, None).unwrap();
        assert_eq!(s.to_vec::<f32>(), vec![5.0, 7.0, 9.0]);
        let b = Tensor::from_slice(&[true, true, false]);
        let sb = sum(&b, None, false, None).unwrap();
        assert_eq!((sb.dtype(), sb.to_vec::<i64>()), (DType::Int64, vec![2]));
        assert!(matches!(
            sum(&x, Some(&[2]), false, None),
            Err(RuntimeError::DimOutOfRange { .. })
        ));
        // sum of non-contiguous input
        let t = x.t().unwrap();
        assert_eq!(
            sum(&t, Some(&[1]), false, None).unwrap().to_vec::<f32>(),
            vec![5.0, 7.0, 9.0]
        );
    }

    #[test]
    fn max_with_indices_and_nan() {
        let x = m23();
        let (v, i) = max_dim(&x, 1, false).unwrap();
        assert_eq!(v.to_vec::<f32>(), vec![5.0, 6.0]);
        assert_eq!(i.to_vec::<i64>(), vec![1, 2]);
        let n = Tensor::from_slice(&[1.0f32, f32::NAN, 3.0]);
        assert!(max_all(&n).unwrap().item().unwrap().to_f64().is_nan());
        assert_eq!(argmax(&n, None, false).unwrap().to_vec::<i64>(), vec![1]);
        let e = Tensor::zeros(&[0], DType::Float32).unwrap();
        assert!(max_all(&e).is_err());
        assert!(max_dim(&Tensor::zeros(&[0, 3], DType::Float32).unwrap(), 0, false).is_err());
    }

    #[test]
    fn var_std_mean_softmax() {
        let x = Tensor::from_slice(&[1.0f64, 2.0, 3.0, 4.0]);
        assert_eq!(
            var(&x, None, 1.0, false).unwrap().to_vec::<f64>(),
            vec![5.0 / 3.0]
        );
        assert_eq!(
            mean(&x, None, false, None).unwrap().to_vec::<f64>(),
            vec![2.5]
        );
        assert!(mean(&Tensor::from_slice(&[1i64]), None, false, None).is_err());
        let s = softmax(&x, -1, None).unwrap().to_vec::<f64>();
        assert!((s.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        let c = cumsum(&Tensor::from_slice(&[1i32, 2, 3]), 0, None).unwrap();
        assert_eq!(
            (c.dtype(), c.to_vec::<i64>()),
            (DType::Int64, vec![1, 3, 6])
        );
        let e = mean(
            &Tensor::zeros(&[0], DType::Float32).unwrap(),
            None,
            false,
            None,
        )
        .unwrap();
        assert!(e.item().unwrap().to_f64().is_nan());
    }

    /// Softmax over contiguous rows (read in place, into a pooled buffer) gives the bits of the
    /// lane loop, which a transposed input of the same values takes: f32 and f64, one task and
    /// several, rows with NaN, ±inf, -inf only, huge and tiny values.
    #[test]
    fn contiguous_softmax_rows_match_the_lane_loop() {
        let specials = super::super::TEST_SPECIALS;
        for (rows, n) in [(3usize, 5usize), (40, 1000), (70, 1024), (2000, 33)] {
            let v: Vec<f64> = (0..rows * n)
                .map(|i| match (i / n, i % 97) {
                    (1, _) => f64::NEG_INFINITY,
                    (_, 3) => specials[(i / 97) % specials.len()],
                    _ => ((i * 7919 % 1000) as f64 - 500.0) * 0.02,
                })
                .collect();
            for dtype in [DType::Float32, DType::Float64] {
                let x = Tensor::from_vec(v.clone(), &[rows, n])
                    .unwrap()
                    .to_dtype(dtype)
                    .unwrap();
                // The same values as the transpose of a contiguous [n, rows] tensor.
                let xt = x
                    .transpose(0, 1)
                    .unwrap()
                    .contiguous()
                    .unwrap()
                    .transpose(0, 1)
                    .unwrap();
                assert!(x.is_contiguous() && !xt.is_contiguous());
                let (a, b) = (
                    softmax(&x, -1, None).unwrap(),
                    softmax(&xt, 1, None).unwrap(),
                );
                assert_eq!(a.shape(), b.shape());
                for (i, (p, q)) in a.to_vec::<f64>().iter().zip(b.to_vec::<f64>()).enumerate() {
                    assert!(
                        p.to_bits() == q.to_bits() || (p.is_nan() && q.is_nan()),
                        "{rows}x{n} {dtype:?} element {i}: {p} vs {q}"
                    );
                }
            }
        }
    }
}
