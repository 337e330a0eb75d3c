//! matmul and friends. Float matrices go through the `gemm` crate (packed, cache-blocked
//! micro-kernels for AVX2+FMA and AVX-512 chosen at run time, threaded on the runtime's pool),
//! reading strided operands (transposes, slices) in place; matrix-vector shapes, which gemm runs
//! on one thread, are split across the pool here. Integer products use a wrapping i-k-j loop
//! (exact: PyTorch wraps on overflow too).

use ndarray::{Array2, ArrayView2, ArrayViewD, Ix2};

use super::vmath::{num_threads, pool};

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

/// The float element types of the GEMM path.
trait Float: Element {
    const ZERO: Self;
    const ONE: Self;
    /// `self + x * v`, two roundings (no fused multiply-add: the same bits on every ISA).
    fn add_prod(self, x: Self, v: Self) -> Self;
}

impl Float for f32 {
    const ZERO: f32 = 0.0;
    const ONE: f32 = 1.0;
    #[inline(always)]
    fn add_prod(self, x: f32, v: f32) -> f32 {
        self + x * v
    }
}

impl Float for f64 {
    const ZERO: f64 = 0.0;
    const ONE: f64 = 1.0;
    #[inline(always)]
    fn add_prod(self, x: f64, v: f64) -> f64 {
        self + x * v
    }
}

/// `y[j] = Σ_i x[i] b[i, lo + j]` for a `b` with unit column stride: whole rows of `b` streamed
/// in order, four at a time, into a tile of `y` that stays in L1 (gemm's matrix-vector path
/// reads `b` column-blocked and ran at ~half the speed of numpy's). Every `y[j]` adds its
/// products one by one in row order whatever the tiling, so a split of the columns across
/// threads gives the same bits as one call. The sums build up in a local, cache-line aligned
/// tile, copied into `y` at the end: adding into `y` itself made the threads of a split write
/// the cache line their blocks share (when `y` is not 64-byte aligned) ~k/4 times each, which
/// took 1×1024 @ 1024×256 on two threads from 13 µs (one thread) to 40 µs.
///
/// # Safety
/// `b` must address `x.len()` rows of at least `lo + y.len()` readable columns.
#[inline(always)]
unsafe fn gemv_rows_body<T: Float>(x: &[T], b: Mat<T>, lo: usize, y: &mut [T]) {
    // 1,024 columns (4 KiB of f32 sums): mlp's 1×512 @ 512×1024 on one thread took 32.8 µs
    // with tiles of 512 (two passes over 2 KiB pieces of each row), 26.3 with 1,024.
    const TILE: usize = 1024;
    #[repr(align(64))]
    struct Tile<T>([T; TILE]);
    let mut acc = Tile([T::ZERO; TILE]);
    for (t, y_out) in y.chunks_mut(TILE).enumerate() {
        let col = (lo + t * TILE) as isize;
        let w = y_out.len();
        // SAFETY: row `i < x.len()`, columns `col .. col + w` of `b` (the caller's contract).
        let row = |i: usize| unsafe {
            std::slice::from_raw_parts(b.ptr.offset(i as isize * b.rs + col), w)
        };
        let yt = &mut acc.0[..w];
        yt.fill(T::ZERO);
        let quads = x.len() / 4;
        for q in 0..quads {
            let i = 4 * q;
            let (x0, x1, x2, x3) = (x[i], x[i + 1], x[i + 2], x[i + 3]);
            let rows = yt
                .iter_mut()
                .zip(row(i))
                .zip(row(i + 1))
                .zip(row(i + 2))
                .zip(row(i + 3));
            for ((((o, &v0), &v1), &v2), &v3) in rows {
                *o = o
                    .add_prod(x0, v0)
                    .add_prod(x1, v1)
                    .add_prod(x2, v2)
                    .add_prod(x3, v3);
            }
        }
        for (i, &xi) in x.iter().enumerate().skip(4 * quads) {
            for (o, &v) in yt.iter_mut().zip(row(i)) {
                *o = o.add_prod(xi, v);
            }
        }
        y_out.copy_from_slice(yt);
    }
}

/// [`gemv_rows_body`] compiled for AVX2 (the only difference: wider vectors).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn gemv_rows_v3<T: Float>(x: &[T], b: Mat<T>, lo: usize, y: &mut [T]) {
    // SAFETY: the caller's contract.
    unsafe { gemv_rows_body(x, b, lo, y) }
}

/// [`gemv_rows_body`] compiled for AVX-512 (512-bit vectors: half the instructions per row).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl,avx2,fma")]
unsafe fn gemv_rows_v4<T: Float>(x: &[T], b: Mat<T>, lo: usize, y: &mut [T]) {
    // SAFETY: the caller's contract.
    unsafe { gemv_rows_body(x, b, lo, y) }
}

/// # Safety
/// As [`gemv_rows_body`].
unsafe fn gemv_rows<T: Float>(x: &[T], b: Mat<T>, lo: usize, y: &mut [T]) {
    #[cfg(target_arch = "x86_64")]
    if super::vmath::isa() >= super::vmath::Isa::Avx512 {
        // SAFETY: `isa()` reports only features the running CPU has; the caller's contract.
        return unsafe { gemv_rows_v4(x, b, lo, y) };
    }
    #[cfg(target_arch = "x86_64")]
    if super::vmath::isa() >= super::vmath::Isa::Avx2Fma {
        // SAFETY: `isa()` reports only features the running CPU has; the caller's contract.
        return unsafe { gemv_rows_v3(x, b, lo, y) };
    }
    // SAFETY: the caller's contract.
    unsafe { gemv_rows_body(x, b, lo, y) }
}

/// A strided matrix operand: base address and row/column strides in elements.
#[derive(Clone, Copy)]
struct Mat<T> {
    ptr: *const T,
    rs: isize,
    cs: isize,
}

// SAFETY: a `Mat` is only read, while the storage's read lock is held by the caller of the
// parallel section (which joins before returning).
unsafe impl<T: Sync> Send for Mat<T> {}
unsafe impl<T: Sync> Sync for Mat<T> {}

impl<T> Mat<T> {
    /// The operand `off` elements further on (a method, so closures capture the whole `Mat`).
    fn shifted(self, off: isize) -> Mat<T> {
        Mat {
            ptr: self.ptr.wrapping_offset(off),
            ..self
        }
    }

    fn offset(self, rows: usize, cols: usize) -> Mat<T> {
        let off = rows as isize * self.rs + cols as isize * self.cs;
        self.shifted(off)
    }
}

/// A one-row product's rows of `b` are cut into chunks of about this many rows (a multiple of
/// four), each summed on its own and the chunks' sums added in order: the chunks depend on
/// `k` only, so the bits do not depend on the thread count, and a thread streams whole rows of
/// a contiguous block of `b` (splitting only the columns across threads, each thread read
/// 2 KiB pieces of mlp's 4 KiB rows, which the hardware prefetchers followed badly:
/// 1×512 @ 512×1024 took 18.6 µs on two threads, numpy 17.0).
const GEMV_CHUNK_ROWS: usize = 256;

/// The number of row chunks of a one-row product with `k` rows of `b`, and their length.
fn gemv_chunks(k: usize) -> (usize, usize) {
    let chunks = k.div_ceil(GEMV_CHUNK_ROWS).max(1);
    (chunks, k.div_ceil(chunks).next_multiple_of(4))
}

/// Products with at least this many multiply-adds are split across threads: matrix-vector
/// shapes and batches of small products through the runtime's fork/join ([`crate::par`]).
const GEMM_PAR_MIN: usize = 1 << 18;
/// Other products (gemm's own blocking and threading, which forks through rayon) split from
/// this many: rayon's fork/join costs 10-40 µs on the 2-vCPU VM of docs/kernels.md, so
/// 32×128 @ 128×128 (2^19, 6 µs on one thread) took 20-30 µs on two; 64×1024 @ 1024×256 (2^24)
/// gains (183 → 120-130 µs).
const GEMM_RAYON_MIN: usize = 1 << 22;
/// Products of at most this many rows (and enough columns) split their columns over the
/// runtime's fork/join instead of gemm's rayon threading, from [`GEMM_PAR_MIN`] on (rnn's
/// 32×128 @ 128×128 steps, 2^19 multiply-adds each, split in two: the workload's median went
/// from 2.35-2.41 to 1.64-1.66 ms, `pyjit bench`, 2 threads, alternated, 6 Dec).
const WIDE_MAX_ROWS: usize = 256;

/// `dst (m×n, row stride dst_rs, column stride 1) = a (m×k) · b (k×n)`.
///
/// # Safety
/// `a` and `b` must address `m×k` and `k×n` readable elements (unless the product is empty) and
/// `dst` `m×n` writable ones that alias neither.
// BLAS-style: three sizes, the destination and its stride, two operands, a threading switch.
#[allow(clippy::too_many_arguments)]
unsafe fn gemm_into<T: Float>(
    m: usize,
    n: usize,
    k: usize,
    dst: *mut T,
    dst_rs: isize,
    a: Mat<T>,
    b: Mat<T>,
    threads: bool,
) {
    if m == 0 || n == 0 {
        return;
    }
    if k == 0 {
        for i in 0..m {
            for j in 0..n {
                // SAFETY: in the destination block.
                unsafe { *dst.offset(i as isize * dst_rs + j as isize) = T::ZERO };
            }
        }
        return;
    }
    let par = threads && m.saturating_mul(n).saturating_mul(k) >= GEMM_PAR_MIN;
    let t = if par { num_threads() } else { 1 };
    let call = |m: usize, n: usize, dst: *mut T, a: Mat<T>, b: Mat<T>, p: gemm::Parallelism| {
        // SAFETY: the caller's contract, for this block.
        unsafe {
            gemm::gemm(
                m,
                n,
                k,
                dst,
                1,
                dst_rs,
                false,
                a.ptr,
                a.cs,
                a.rs,
                b.ptr,
                b.cs,
                b.rs,
                T::ZERO,
                T::ONE,
                false,
                false,
                false,
                p,
            )
        }
    };
    if m == 1 && b.cs == 1 {
        // One row times a row-major matrix: our row-streaming kernel over fixed chunks of
        // rows (see `GEMV_CHUNK_ROWS`), the partial rows added in chunk order; the columns
        // split too when there are fewer chunks than threads.
        // SAFETY: `a` addresses `k` elements of its row.
        let x: Vec<T> = (0..k)
            .map(|i| unsafe { *a.ptr.offset(i as isize * a.cs) })
            .collect();
        let (chunks, rows) = gemv_chunks(k);
        let col_blocks = t.div_ceil(chunks);
        let block = n.div_ceil(col_blocks).next_multiple_of(16);
        let col_blocks = n.div_ceil(block);
        // With one chunk the sums go straight to the destination; else chunk `c`'s into row
        // `c` of `partial`, added up below.
        let mut partial = if chunks > 1 {
            vec![T::ZERO; chunks * n]
        } else {
            Vec::new()
        };
        let out = crate::par::SyncPtr(if chunks > 1 {
            partial.as_mut_ptr()
        } else {
            dst
        });
        let run = |i: usize| {
            let (c, j) = (i / col_blocks, i % col_blocks);
            let (r0, r1) = (c * rows, ((c + 1) * rows).min(k));
            let (lo, hi) = (j * block, ((j + 1) * block).min(n));
            // SAFETY: columns `lo..hi` of row `c` of the sums (the destination's only row
            // when `chunks == 1`), written by this task only; `b` has `k` rows of `n` columns.
            unsafe {
                let y = std::slice::from_raw_parts_mut(out.get().add(c * n + lo), hi - lo);
                gemv_rows(&x[r0..r1], b.offset(r0, 0), lo, y);
            }
        };
        if t <= 1 {
            (0..chunks * col_blocks).for_each(run);
        } else {
            crate::par::for_each(chunks * col_blocks, run);
        }
        if chunks > 1 {
            // SAFETY: the destination row has `n` writable elements aliasing no operand.
            let y = unsafe { std::slice::from_raw_parts_mut(dst, n) };
            let (first, rest) = partial.split_at(n);
            y.copy_from_slice(first);
            for p in rest.chunks_exact(n) {
                for (o, &v) in y.iter_mut().zip(p) {
                    *o = o.add_prod(T::ONE, v);
                }
            }
        }
    } else if t <= 1 {
        call(m, n, dst, a, b, gemm::Parallelism::None);
    } else if m == 1 || n == 1 {
        // gemm runs matrix-vector products on one thread: split the long side into `t` blocks.
        let long = m.max(n);
        let block = long.div_ceil(t).next_multiple_of(16);
        let d = crate::par::SyncPtr(dst);
        crate::par::for_each(long.div_ceil(block), |i| {
            let (lo, hi) = (i * block, ((i + 1) * block).min(long));
            if m == 1 {
                let dp = d.get().wrapping_add(lo);
                call(1, hi - lo, dp, a, b.offset(0, lo), gemm::Parallelism::None);
            } else {
                let dp = d.get().wrapping_offset(lo as isize * dst_rs);
                call(hi - lo, 1, dp, a.offset(lo, 0), b, gemm::Parallelism::None);
            }
        });
    } else if m <= WIDE_MAX_ROWS && n >= t * 64 {
        // A short, wide product (a batch of rows through a layer): one block of columns per
        // thread, each a single-threaded gemm packing only its own columns of `b`.
        let block = n.div_ceil(t).next_multiple_of(16);
        let d = crate::par::SyncPtr(dst);
        crate::par::for_each(n.div_ceil(block), |i| {
            let (lo, hi) = (i * block, ((i + 1) * block).min(n));
            let dp = d.get().wrapping_add(lo);
            call(m, hi - lo, dp, a, b.offset(0, lo), gemm::Parallelism::None);
        });
    } else if m.saturating_mul(n).saturating_mul(k) < GEMM_RAYON_MIN {
        call(m, n, dst, a, b, gemm::Parallelism::None);
    } else {
        let d = crate::par::SyncPtr(dst);
        pool().install(|| call(m, n, d.get(), a, b, gemm::Parallelism::Rayon(t)));
    }
}

fn mat_of<T>(v: &ArrayViewD<'_, T>) -> Mat<T> {
    let st = v.strides();
    Mat {
        ptr: v.as_ptr(),
        rs: st[st.len() - 2],
        cs: st[st.len() - 1],
    }
}

/// Float `a (m×k) · b (k×n)` through [`gemm_into`].
fn float_mm<T: Float>(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let (m, k, n) = (a.shape()[0], a.shape()[1], b.shape()[1]);
    let total = check_alloc(&[m, n], T::DTYPE)?;
    // Every element is written by `gemm_into` (k = 0 included).
    let mut out = crate::bufpool::alloc::<T>(total)?;
    a.with_view_as::<T, ()>(|av| {
        b.with_view_as::<T, ()>(|bv| {
            // SAFETY: the views describe m×k and k×n elements of live, read-locked storages;
            // `out` is a fresh m×n buffer.
            unsafe {
                gemm_into(
                    m,
                    n,
                    k,
                    out.as_mut_ptr(),
                    n as isize,
                    mat_of(&av),
                    mat_of(&bv),
                    true,
                )
            }
        })
    });
    Tensor::from_vec(out, &[m, n])
}

/// Float batched product of 3-d `a (B×n×k)` and `b (B×k×m)` into a fresh `B×n×m` buffer: one
/// gemm per batch, the batches spread over the pool when each product is small.
fn float_bmm<T: Float>(a: &Tensor, b: &Tensor) -> Result<Vec<T>> {
    let (bt, n, k, m) = (a.shape()[0], a.shape()[1], a.shape()[2], b.shape()[2]);
    let total = check_alloc(&[bt, n, m], T::DTYPE)?;
    let mut out = crate::bufpool::alloc::<T>(total)?;
    if total == 0 {
        return Ok(out);
    }
    a.with_view_as::<T, ()>(|av| {
        b.with_view_as::<T, ()>(|bv| {
            let (a0, b0) = (av.strides()[0], bv.strides()[0]);
            let (ma, mb) = (mat_of(&av), mat_of(&bv));
            let one = |i: usize, dst: &mut [T], threads: bool| {
                let ai = ma.shifted(i as isize * a0);
                let bi = mb.shifted(i as isize * b0);
                // SAFETY: batch `i` of both views, and its own n×m block of `out`.
                unsafe { gemm_into(n, m, k, dst.as_mut_ptr(), m as isize, ai, bi, threads) }
            };
            let work = n * m * k;
            if bt > 1 && work < GEMM_PAR_MIN && work * bt >= GEMM_PAR_MIN && num_threads() > 1 {
                crate::par::for_each_chunk_mut(&mut out, n * m, |i, d| one(i, d, false));
            } else {
                for (i, d) in out.chunks_mut(n * m).enumerate() {
                    one(i, d, true);
                }
            }
        })
    });
    Ok(out)
}

/// 2-d × 2-d product of two same-dtype tensors (shapes already checked).
fn gemm(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let (m, n) = (a.shape()[0], b.shape()[1]);
    check_alloc(&[m, n], a.dtype())?;
    match a.dtype() {
        DType::Float32 => return float_mm::<f32>(a, b),
        DType::Float64 => return float_mm::<f64>(a, b),
        _ => {}
    }
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
        DType::Int32 => go::<i32>(a, b, |x, y| {
            int_gemm(x, y, i32::wrapping_mul, i32::wrapping_add)
        }),
        DType::Int64 => go::<i64>(a, b, |x, y| {
            int_gemm(x, y, i64::wrapping_mul, i64::wrapping_add)
        }),
        _ => Err(RuntimeError::not_implemented_for(
            "addmm_impl_cpu_",
            a.dtype(),
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
    match a.dtype() {
        DType::Float32 => return Tensor::from_vec(float_bmm::<f32>(&a3, &b3)?, &shape),
        DType::Float64 => return Tensor::from_vec(float_bmm::<f64>(&a3, &b3)?, &shape),
        _ => {}
    }
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
            let mut sa: Vec<usize> = batch.to_vec();
            sa.extend([n, k1]);
            let mut sb: Vec<usize> = batch.to_vec();
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

    /// Deterministic values in [-1, 1).
    fn pseudo(n: usize, seed: usize) -> Vec<f64> {
        (0..n)
            .map(|i| (((i * 7919 + seed * 104_729) % 2000) as f64) / 1000.0 - 1.0)
            .collect()
    }

    fn naive(a: &[f64], b: &[f64], m: usize, k: usize, n: usize) -> Vec<f64> {
        let mut out = vec![0.0; m * n];
        for i in 0..m {
            for p in 0..k {
                for j in 0..n {
                    out[i * n + j] += a[i * k + p] * b[p * n + j];
                }
            }
        }
        out
    }

    /// A one-row product adds each chunk's rows in row order (`x[i] * b[i, j]` rounded, then
    /// added) and the chunks' sums in chunk order, on one thread and split, for chunk counts
    /// of one and more, row counts that are not multiples of four, column counts below and
    /// above the kernel's tile, and strided operands (a column block of a wider `b`, a
    /// strided `x`).
    #[test]
    fn one_row_products_add_in_the_documented_order_whatever_the_split() {
        for (k, n) in [(5, 3), (300, 33), (512, 1024), (1037, 1500), (1024, 256)] {
            let x: Vec<f32> = pseudo(k, 5).iter().map(|&v| v as f32).collect();
            let b: Vec<f32> = pseudo(k * n, 6).iter().map(|&v| v as f32 * 0.37).collect();
            let (chunks, rows) = gemv_chunks(k);
            let mut want = vec![0f32; n];
            for c in 0..chunks {
                let mut part = vec![0f32; n];
                for i in c * rows..((c + 1) * rows).min(k) {
                    for (j, p) in part.iter_mut().enumerate() {
                        *p += x[i] * b[i * n + j];
                    }
                }
                for (w, p) in want.iter_mut().zip(&part) {
                    *w = if c == 0 { *p } else { *w + p };
                }
            }
            // `b` also as the first `n` columns of a wider matrix (row stride `n + 7`), and `x`
            // strided (every other element of a longer row).
            let wide: Vec<f32> = (0..k)
                .flat_map(|i| b[i * n..(i + 1) * n].iter().copied().chain([f32::NAN; 7]))
                .collect();
            let xs: Vec<f32> = x.iter().flat_map(|&v| [v, f32::NAN]).collect();
            let operands = [(&x, 1, &b, n), (&xs, 2, &wide, n + 7)];
            for ((xv, xstride, bv, rs), threads) in
                operands.into_iter().flat_map(|o| [(o, false), (o, true)])
            {
                let mut got = vec![f32::NAN; n];
                let a = Mat {
                    ptr: xv.as_ptr(),
                    rs: (k * xstride) as isize,
                    cs: xstride as isize,
                };
                let bm = Mat {
                    ptr: bv.as_ptr(),
                    rs: rs as isize,
                    cs: 1,
                };
                // SAFETY: `a` addresses k elements of `xv`, `bm` k rows of `n` columns of `bv`,
                // `got` 1×n, none aliasing.
                unsafe { gemm_into(1, n, k, got.as_mut_ptr(), n as isize, a, bm, threads) };
                for (j, (g, w)) in got.iter().zip(&want).enumerate() {
                    assert_eq!(
                        g.to_bits(),
                        w.to_bits(),
                        "{k}x{n}, row stride {rs}, threads {threads}, col {j}"
                    );
                }
            }
        }
    }

    /// Every GEMM path (gemv split, column split of a short wide product, gemm's own
    /// threading, single-thread gemm, k = 0, empty) against a naive f64 product, for both float
    /// dtypes and for transposed (strided) operands. (The threaded paths run when the machine
    /// or `PYJIT_NUM_THREADS` gives two threads or more.)
    #[test]
    fn float_gemm_matches_a_naive_product_for_every_shape() {
        let shapes = [
            (1, 512, 1024),
            (1000, 300, 1),
            (64, 512, 100),
            (3, 5, 7),
            (1, 1, 1),
            (4, 0, 3),
            (0, 3, 4),
            (70, 80, 90),
            (32, 1024, 200),
            (32, 128, 128),
            (300, 100, 200),
        ];
        for (m, k, n) in shapes {
            let (av, bv) = (pseudo(m * k, 1), pseudo(k * n, 2));
            let want = naive(&av, &bv, m, k, n);
            for dtype in [DType::Float32, DType::Float64] {
                let a = Tensor::from_vec(av.clone(), &[m, k])
                    .unwrap()
                    .to_dtype(dtype)
                    .unwrap();
                let b = Tensor::from_vec(bv.clone(), &[k, n])
                    .unwrap()
                    .to_dtype(dtype)
                    .unwrap();
                // The same product through transposed storage: (bᵀ aᵀ)ᵀ.
                let at = a.t().unwrap().contiguous().unwrap().t().unwrap();
                for lhs in [&a, &at] {
                    let got = matmul(lhs, &b).unwrap();
                    assert_eq!(got.shape(), &[m, n]);
                    let tol = if dtype == DType::Float32 { 1e-4 } else { 1e-12 };
                    for (g, w) in got.to_vec::<f64>().iter().zip(&want) {
                        assert!(
                            (g - w).abs() <= tol * (1.0 + w.abs()),
                            "{m}x{k}x{n}: {g} vs {w}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn batched_float_products_match_per_batch_products() {
        let a = Tensor::from_vec(pseudo(6 * 20 * 30, 3), &[6, 20, 30]).unwrap();
        let b = Tensor::from_vec(pseudo(30 * 10, 4), &[30, 10]).unwrap();
        let a32 = a.to_dtype(DType::Float32).unwrap();
        let b32 = b.to_dtype(DType::Float32).unwrap();
        let r = matmul(&a32, &b32).unwrap();
        assert_eq!(r.shape(), &[6, 20, 10]);
        let bb = b32.unsqueeze(0).unwrap().expand(&[6, 30, 10]).unwrap();
        let r2 = bmm(&a32, &bb).unwrap();
        for i in 0..6 {
            let ai = a32.select(0, i).unwrap();
            let want = mm(&ai, &b32).unwrap().to_vec::<f32>();
            assert_eq!(r.select(0, i).unwrap().to_vec::<f32>(), want);
            assert_eq!(r2.select(0, i).unwrap().to_vec::<f32>(), want);
        }
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
