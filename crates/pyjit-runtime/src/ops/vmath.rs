//! Vectorized elementwise math with run-time CPU dispatch.
//!
//! Every function is written once as branch-free scalar Rust (selects instead of branches, no
//! calls, integer bit tricks instead of float→int conversions) generic over `const FMA: bool`,
//! and [`map`] runs it over a slice in a loop that LLVM vectorizes. That loop is compiled three
//! times: for AVX-512 (16 f32 lanes), for AVX2+FMA (8 lanes) and for the baseline SSE2 (4 lanes,
//! `a * b + c` instead of a fused multiply-add, since `mul_add` without the FMA unit is a libm
//! call). The CPU is probed once ([`isa`]); `PYJIT_SIMD=scalar|avx2|avx512` caps the choice
//! (tests use it to run the fallbacks). Because LLVM does not reassociate or contract float
//! arithmetic, the AVX-512 and AVX2 builds compute bit-identical results (both use FMA), and the
//! SSE2 build differs from them only by the fused roundings: the ulp test measures both flavours.
//!
//! Above [`PAR_MIN`] elements the slice is split into fixed chunks ([`ELEM_CHUNK`] elements for
//! elementwise kernels, [`PAR_CHUNK`] for sums) spread over threads by [`crate::par`];
//! elementwise results do not depend on the split, sums only on the fixed chunks.
//!
//! Accuracy (max ulp over all of f32 / a dense f64 sample, measured by the `ulp` tests in this
//! file and tabulated in docs/kernels.md): see [`ULP_BOUNDS`]. Special values (NaN, ±inf, ±0,
//! overflow and underflow to subnormals) follow C99 Annex F like the libm functions they replace.

// Coefficients are written as published (more digits than the type holds rounds to the same
// value); `!(x >= 0.0)` is the NaN-catching select, meant as written.
#![allow(clippy::excessive_precision, clippy::neg_cmp_op_on_partial_ord)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use parking_lot::RwLock;

use crate::par;

/// The instruction set the kernels run with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Isa {
    /// Baseline x86-64 (SSE2) or a non-x86 target: no FMA.
    Scalar,
    /// AVX2 + FMA (x86-64-v3).
    Avx2Fma,
    /// AVX-512 F/DQ/BW/VL (x86-64-v4).
    Avx512,
}

/// The best instruction set this CPU supports, capped by `PYJIT_SIMD` (`scalar`, `avx2`,
/// `avx512`); probed once.
pub fn isa() -> Isa {
    static ISA: OnceLock<Isa> = OnceLock::new();
    *ISA.get_or_init(|| {
        let cap = match std::env::var("PYJIT_SIMD").ok().as_deref() {
            Some("scalar") | Some("sse2") => Isa::Scalar,
            Some("avx2") => Isa::Avx2Fma,
            _ => Isa::Avx512,
        };
        detected().min(cap)
    })
}

/// Whether the kernels run their FMA flavour (`mul_add` a fused multiply-add) rather than the
/// plain one (`a * b + c`): on AVX2+FMA and AVX-512 CPUs. Every scalar evaluation of a kernel
/// ([`eval_unary`], [`super::elem`]'s C entries, native code's inline copies) picks the flavour
/// by this, so it gives the tensor loops' bits.
pub fn fma_flavour() -> bool {
    isa() != Isa::Scalar
}

fn detected() -> Isa {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx512f")
            && std::is_x86_feature_detected!("avx512dq")
            && std::is_x86_feature_detected!("avx512bw")
            && std::is_x86_feature_detected!("avx512vl")
            && std::is_x86_feature_detected!("fma")
        {
            return Isa::Avx512;
        }
        if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
            return Isa::Avx2Fma;
        }
    }
    Isa::Scalar
}

// ------------------------------------------------------------------------------ threads

/// Elementwise ops and reductions on at least this many elements are split across threads
/// through [`crate::par`] (the `par_threshold` example, 2-vCPU Zen 4 VM of docs/kernels.md: two
/// threads take 0.5-0.8 of one thread's time from 16k f32 on for exp, tanh, add and sum).
pub const PAR_MIN: usize = 1 << 15;
/// Elements per parallel task of the reductions: fixed, so that chunk boundaries (and with
/// them every reduction's association order) do not depend on the number of threads.
pub const PAR_CHUNK: usize = 1 << 15;
/// Elements per parallel task of the elementwise kernels (no association to keep: smaller
/// than [`PAR_CHUNK`] so that a [`PAR_MIN`]-element op is split at all).
pub const ELEM_CHUNK: usize = 1 << 13;

/// The runtime's thread pool: `PYJIT_NUM_THREADS` threads (default: the machine's cores), or
/// the count last given to [`set_num_threads`]. Built on first use; gemm's parallel products
/// run in it too. (An `Arc`: a pool replaced by `set_num_threads` lives on until the kernels
/// running in it finish.)
pub fn pool() -> Arc<rayon::ThreadPool> {
    if let Some(p) = POOL.read().as_ref() {
        return p.clone();
    }
    POOL.write()
        .get_or_insert_with(|| Arc::new(build_pool(num_threads_from_env())))
        .clone()
}

static POOL: RwLock<Option<Arc<rayon::ThreadPool>>> = RwLock::new(None);
/// The current pool's thread count (0: no pool yet), so that size checks need no lock.
static THREADS: AtomicUsize = AtomicUsize::new(0);

fn build_pool(n: usize) -> rayon::ThreadPool {
    let p = rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .thread_name(|i| format!("pyjit-worker-{i}"))
        .build()
        .unwrap_or_else(|_| {
            // Spawning threads failed (resource limits): a 1-thread pool runs on the caller.
            rayon::ThreadPoolBuilder::new()
                .num_threads(1)
                .use_current_thread()
                .build()
                .expect("a pool on the current thread needs no new thread")
        });
    THREADS.store(p.current_num_threads(), Ordering::Relaxed);
    p
}

/// Sets the number of threads kernels use from now on (`0`: back to `PYJIT_NUM_THREADS` or
/// the machine's cores). The facade's `CompileOptions::num_threads` calls this. Results do
/// not depend on the count (fixed chunking, see [`PAR_CHUNK`]).
pub fn set_num_threads(n: usize) {
    let n = if n == 0 { num_threads_from_env() } else { n };
    let mut w = POOL.write();
    if w.as_ref().is_some_and(|p| p.current_num_threads() == n) {
        return;
    }
    *w = Some(Arc::new(build_pool(n)));
}

/// The number of threads kernels use: `PYJIT_NUM_THREADS` if it is a positive integer, else the
/// machine's available parallelism (or the count given to [`set_num_threads`]).
pub fn num_threads() -> usize {
    match THREADS.load(Ordering::Relaxed) {
        0 => pool().current_num_threads(),
        n => n,
    }
}

fn num_threads_from_env() -> usize {
    std::env::var("PYJIT_NUM_THREADS")
        .ok()
        .and_then(|s| s.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

// ------------------------------------------------------------------------------ mapping

/// A unary elementwise function, generic over whether `mul_add` is a hardware FMA.
pub trait Unary<T>: Copy + Send + Sync {
    fn eval<const FMA: bool>(self, x: T) -> T;
    /// Whether some inputs are outside what the vector formula covers (sin/cos/tan of huge
    /// arguments); for those, the loops replace `eval`'s result by [`Unary::slow`]'s.
    const HAS_SLOW: bool = false;
    #[inline(always)]
    fn needs_slow(self, _x: T) -> bool {
        false
    }
    fn slow(self, x: T) -> T {
        x
    }
    /// Runs the kernel's own AVX-512 loop, if it has one (`out[i] = eval(x[i])` for `i < n`,
    /// `x` may be `out`; bit-identical to the `eval` loop on every input, see `vmath_avx512.rs`), and
    /// says whether it did. [`map`] and [`map_inplace`] try it on AVX-512 CPUs.
    ///
    /// # Safety
    /// The CPU has AVX-512 F/DQ/BW/VL; `x` and `out` are valid for `n` elements.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn map_avx512(self, _x: *const T, _out: *mut T, _n: usize) -> bool {
        false
    }
    /// [`Unary::map_avx512`] for AVX2 + FMA CPUs (`vmath_avx2.rs`): kernels whose portable loop
    /// LLVM vectorizes badly. Tried after the AVX-512 loop.
    ///
    /// # Safety
    /// The CPU has AVX2 and FMA; `x` and `out` are valid for `n` elements.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn map_avx2(self, _x: *const T, _out: *mut T, _n: usize) -> bool {
        false
    }
    /// The kernel's AVX-512 loop followed by one operation ([`map_then`]), if it has one.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn then_avx512(self) -> Option<ThenKernel> {
        None
    }
    /// Runs the kernel's own AVX-512 loop of `x - m` ([`Minus`]: `out[i] = eval(x[i] - m)`,
    /// the subtraction rounded first), if it has one, and says whether it did.
    ///
    /// # Safety
    /// As [`Unary::map_avx512`].
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn map_minus_avx512(self, _x: *const T, _m: T, _out: *mut T, _n: usize) -> bool {
        false
    }
}

/// `out[i] = k.slow(x[i])` where `k.needs_slow(x[i])` (rare inputs): a branch-free scan of each
/// block of 256 (which vectorizes), and the element loop only in a block that has one.
#[inline]
fn fix_slow<T: Copy, K: Unary<T>>(k: K, x: &[T], out: &mut [T]) {
    const BLOCK: usize = 256;
    if K::HAS_SLOW {
        for (xb, ob) in x.chunks(BLOCK).zip(out.chunks_mut(BLOCK)) {
            if xb.iter().fold(false, |any, &v| any | k.needs_slow(v)) {
                for (o, &v) in ob.iter_mut().zip(xb) {
                    if k.needs_slow(v) {
                        *o = k.slow(v);
                    }
                }
            }
        }
    }
}

/// One serial chunk of [`map`]: the vector loop, then the slow-path fix-ups.
fn map_chunk<T: Scalar, K: Unary<T>>(k: K, x: &[T], out: &mut [T]) {
    map_serial(k, x, out);
    fix_slow(k, x, out);
}

/// `out[i] = k(x[i])` on one thread: the kernel's [`Unary::map_avx512`] (or
/// [`Unary::map_avx2`]) loop when it has one and the CPU runs those instructions, else the
/// vectorized `eval` loop.
fn map_serial<T: Scalar, K: Unary<T>>(k: K, x: &[T], out: &mut [T]) {
    #[cfg(target_arch = "x86_64")]
    {
        let (xp, op, n) = (x.as_ptr(), out.as_mut_ptr(), x.len().min(out.len()));
        let isa = isa();
        // SAFETY: the CPU has the loops' features (`isa`); both slices hold `n` elements.
        if (isa == Isa::Avx512 && unsafe { k.map_avx512(xp, op, n) })
            || (isa >= Isa::Avx2Fma && unsafe { k.map_avx2(xp, op, n) })
        {
            return;
        }
    }
    map_serial_eval(k, x, out)
}

/// [`map_serial`] in place.
fn map_serial_inplace<T: Scalar, K: Unary<T>>(k: K, x: &mut [T]) {
    #[cfg(target_arch = "x86_64")]
    {
        let (p, n, isa) = (x.as_mut_ptr(), x.len(), isa());
        // SAFETY: as in `map_serial`; the loops read each vector before writing it.
        if (isa == Isa::Avx512 && unsafe { k.map_avx512(p, p, n) })
            || (isa >= Isa::Avx2Fma && unsafe { k.map_avx2(p, p, n) })
        {
            return;
        }
    }
    map_serial_inplace_eval(k, x)
}

/// One serial chunk of [`map_inplace`]; kernels with a slow path keep a copy of each block of
/// inputs for the fix-ups.
fn map_chunk_inplace<T: Scalar, K: Unary<T>>(k: K, x: &mut [T]) {
    if !K::HAS_SLOW {
        return map_serial_inplace(k, x);
    }
    const BLOCK: usize = 1024;
    for block in x.chunks_mut(BLOCK) {
        let mut orig = [block[0]; BLOCK];
        let orig = &mut orig[..block.len()];
        orig.copy_from_slice(block);
        map_serial_inplace(k, block);
        fix_slow(k, orig, block);
    }
}

/// `k` applied to one value as [`map`] computes it: the flavour the dispatched loops use (in a
/// function compiled for those features, so an FMA is one instruction), then the slow path.
#[inline]
pub fn eval_unary<T: Scalar, K: Unary<T>>(k: K, x: T) -> T {
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    fn v3<T: Scalar, K: Unary<T>>(k: K, x: T) -> T {
        k.eval::<true>(x)
    }
    if K::HAS_SLOW && k.needs_slow(x) {
        return k.slow(x);
    }
    match isa() {
        // SAFETY: `isa()` reports only features the running CPU has (AVX-512 implies both).
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 | Isa::Avx2Fma => unsafe { v3(k, x) },
        _ => k.eval::<false>(x),
    }
}

/// `k` applied to one pair of values, with the flavour the dispatched loops use (so that a
/// scalar fallback computes the vector loops' bits).
#[inline]
pub fn eval_binary<T, K: Binary<T>>(k: K, x: T, y: T) -> T {
    if fma_flavour() {
        k.eval::<true>(x, y)
    } else {
        k.eval::<false>(x, y)
    }
}

/// `x op c` for a binary kernel and a fixed right operand.
#[derive(Clone, Copy, Debug)]
pub struct Right<K, T>(pub K, pub T);
impl<T: Copy + Send + Sync, K: Binary<T>> Unary<T> for Right<K, T> {
    #[inline(always)]
    fn eval<const F: bool>(self, x: T) -> T {
        self.0.eval::<F>(x, self.1)
    }
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn map_avx512(self, x: *const T, out: *mut T, n: usize) -> bool {
        // SAFETY: forwarded (the trait method's contract).
        unsafe { self.0.map_right_avx512(x, self.1, out, n) }
    }
}

/// `c op x` for a binary kernel and a fixed left operand.
#[derive(Clone, Copy, Debug)]
pub struct Left<K, T>(pub K, pub T);
impl<T: Copy + Send + Sync, K: Binary<T>> Unary<T> for Left<K, T> {
    #[inline(always)]
    fn eval<const F: bool>(self, x: T) -> T {
        self.0.eval::<F>(self.1, x)
    }
}

/// `k(x - m)` for a unary kernel and a fixed `m`: the subtraction rounded first, then `k`, as
/// the two unfused passes compute it, in one pass (softmax's `exp(x - m)`, a fused group's
/// `x - m` of a row value followed by a unary step). `exp` has an AVX-512 loop of it.
#[derive(Clone, Copy, Debug)]
pub struct Minus<K, T>(pub K, pub T);
impl<T: Copy + Send + Sync, K: Unary<T>> Unary<T> for Minus<K, T>
where
    arith::Sub: arith::Op<T>,
{
    #[inline(always)]
    fn eval<const F: bool>(self, x: T) -> T {
        self.0
            .eval::<F>(<arith::Sub as arith::Op<T>>::apply(x, self.1))
    }
    const HAS_SLOW: bool = K::HAS_SLOW;
    #[inline(always)]
    fn needs_slow(self, x: T) -> bool {
        self.0
            .needs_slow(<arith::Sub as arith::Op<T>>::apply(x, self.1))
    }
    fn slow(self, x: T) -> T {
        self.0.slow(<arith::Sub as arith::Op<T>>::apply(x, self.1))
    }
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn map_avx512(self, x: *const T, out: *mut T, n: usize) -> bool {
        // SAFETY: forwarded (the trait method's contract).
        unsafe { self.0.map_minus_avx512(x, self.1, out, n) }
    }
}

/// A binary elementwise function.
pub trait Binary<T>: Copy + Send + Sync {
    fn eval<const FMA: bool>(self, x: T, y: T) -> T;
    /// [`Unary::map_avx512`] of [`Right`]`(self, y)`: the kernel's own AVX-512 loop of
    /// `out[i] = eval(x[i], y)` for a fixed right operand, if it has one (bit-identical to the
    /// `eval` loop on every input), and whether it ran.
    ///
    /// # Safety
    /// As [`Unary::map_avx512`].
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn map_right_avx512(self, _x: *const T, _y: T, _out: *mut T, _n: usize) -> bool {
        false
    }
}

#[inline(always)]
fn map_loop<T: Copy, K: Unary<T>, const FMA: bool>(k: K, x: &[T], out: &mut [T]) {
    for (o, &v) in out.iter_mut().zip(x) {
        *o = k.eval::<FMA>(v);
    }
}

#[inline(always)]
fn map_loop_inplace<T: Copy, K: Unary<T>, const FMA: bool>(k: K, x: &mut [T]) {
    for v in x.iter_mut() {
        *v = k.eval::<FMA>(*v);
    }
}

#[inline(always)]
fn zip_loop<T: Copy, K: Binary<T>, const FMA: bool>(k: K, x: &[T], y: &[T], out: &mut [T]) {
    for ((o, &a), &b) in out.iter_mut().zip(x).zip(y) {
        *o = k.eval::<FMA>(a, b);
    }
}

/// Instantiates `$body` (a generic `#[inline(always)]` loop) for the three instruction sets and
/// dispatches on [`isa`].
macro_rules! multiversion {
    ($name:ident <$($g:ident : $b:path),*> ($($arg:ident : $ty:ty),*) => $body:ident) => {
        fn $name<$($g: $b),*>($($arg: $ty),*) {
            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl,avx2,fma")]
            fn v4<$($g: $b),*>($($arg: $ty),*) {
                $body::<_, _, true>($($arg),*)
            }
            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx2,fma")]
            fn v3<$($g: $b),*>($($arg: $ty),*) {
                $body::<_, _, true>($($arg),*)
            }
            match isa() {
                // SAFETY: `isa()` reports only features the running CPU has.
                #[cfg(target_arch = "x86_64")]
                Isa::Avx512 => unsafe { v4($($arg),*) },
                // SAFETY: as above.
                #[cfg(target_arch = "x86_64")]
                Isa::Avx2Fma => unsafe { v3($($arg),*) },
                _ => $body::<_, _, false>($($arg),*),
            }
        }
    };
}

multiversion!(map_serial_eval<T: Scalar, K: Unary<T>>(k: K, x: &[T], out: &mut [T]) => map_loop);
multiversion!(map_serial_inplace_eval<T: Scalar, K: Unary<T>>(k: K, x: &mut [T]) => map_loop_inplace);
multiversion!(zip_serial<T: Scalar, K: Binary<T>>(k: K, x: &[T], y: &[T], out: &mut [T]) => zip_loop);
multiversion!(zip_serial_inplace<T: Scalar, K: Binary<T>>(k: K, x: &mut [T], y: &[T]) => zip_loop_inplace);

#[inline(always)]
fn zip_loop_inplace<T: Copy, K: Binary<T>, const FMA: bool>(k: K, x: &mut [T], y: &[T]) {
    for (a, &b) in x.iter_mut().zip(y) {
        *a = k.eval::<FMA>(*a, b);
    }
}

/// The element types the kernels handle.
pub trait Scalar: Copy + Send + Sync {}
impl Scalar for f32 {}
impl Scalar for f64 {}

/// `out[i] = k(x[i])`, vectorized, on the pool above [`PAR_MIN`] elements. `out.len()` must
/// equal `x.len()` (extra elements of the longer slice are left alone).
pub fn map<T: Scalar, K: Unary<T>>(k: K, x: &[T], out: &mut [T]) {
    if x.len() >= PAR_MIN && num_threads() > 1 {
        let n = x.len().min(out.len());
        par::for_each_chunk_mut(&mut out[..n], ELEM_CHUNK, |i, o| {
            map_chunk(k, &x[i * ELEM_CHUNK..][..o.len()], o)
        });
    } else {
        map_chunk(k, x, out);
    }
}

/// `x[i] = k(x[i])` in place.
pub fn map_inplace<T: Scalar, K: Unary<T>>(k: K, x: &mut [T]) {
    if x.len() >= PAR_MIN && num_threads() > 1 {
        par::for_each_chunk_mut(x, ELEM_CHUNK, |_, c| map_chunk_inplace(k, c));
    } else {
        map_chunk_inplace(k, x);
    }
}

/// `out[i] = k(x[i], y[i])`.
pub fn zip<T: Scalar, K: Binary<T>>(k: K, x: &[T], y: &[T], out: &mut [T]) {
    if x.len() >= PAR_MIN && num_threads() > 1 {
        let n = x.len().min(y.len()).min(out.len());
        par::for_each_chunk_mut(&mut out[..n], ELEM_CHUNK, |i, o| {
            let lo = i * ELEM_CHUNK;
            zip_serial(k, &x[lo..][..o.len()], &y[lo..][..o.len()], o)
        });
    } else {
        zip_serial(k, x, y, out);
    }
}

/// `x[i] = k(x[i], y[i])` in place (the left operand overwritten).
pub fn zip_inplace<T: Scalar, K: Binary<T>>(k: K, x: &mut [T], y: &[T]) {
    if x.len() >= PAR_MIN && num_threads() > 1 {
        let n = x.len().min(y.len());
        par::for_each_chunk_mut(&mut x[..n], ELEM_CHUNK, |i, a| {
            zip_serial_inplace(k, a, &y[i * ELEM_CHUNK..][..a.len()])
        });
    } else {
        zip_serial_inplace(k, x, y);
    }
}

/// `+ - * /`, the operation of [`map_then`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arith {
    Add,
    Sub,
    Mul,
    Div,
}

/// `$e` with `$k` bound to the [`arith::Zip`] kernel of `$op` (an [`Arith`]): the one mapping
/// from the operation to its kernel.
macro_rules! with_arith {
    ($op:expr, $k:ident => $e:expr) => {{
        use $crate::ops::vmath::{Arith, arith};
        match $op {
            Arith::Add => {
                let $k = arith::Zip(arith::Add);
                $e
            }
            Arith::Sub => {
                let $k = arith::Zip(arith::Sub);
                $e
            }
            Arith::Mul => {
                let $k = arith::Zip(arith::Mul);
                $e
            }
            Arith::Div => {
                let $k = arith::Zip(arith::Div);
                $e
            }
        }
    }};
}
pub(crate) use with_arith;

/// The kernels with an AVX-512 loop of [`map_then`] ([`Unary::then_avx512`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ThenKernel {
    Exp,
    Sigmoid,
    Tanh,
}

/// The second operand of [`map_then`].
#[derive(Clone, Copy, Debug)]
pub enum ThenArg<'a, T> {
    /// One value per element.
    Slice(&'a [T]),
    /// One value for every element.
    Const(T),
    /// `out`'s own elements (the result goes over them).
    Out,
}

/// A binary kernel with its operands swapped: with [`zip_inplace`], `a[i] = k(b[i], a[i])`
/// (in-place updates of the right operand).
#[derive(Clone, Copy, Debug)]
pub struct Swapped<K>(pub K);
impl<T, K: Binary<T>> Binary<T> for Swapped<K> {
    #[inline(always)]
    fn eval<const F: bool>(self, a: T, b: T) -> T {
        self.0.eval::<F>(b, a)
    }
}

/// `k`'s AVX-512 loops of [`map_then`] and [`scaled_then_map`], when it has them, `T` is f32
/// and the CPU runs them.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn then_kernel_f32<T: 'static, K: Unary<T>>(k: K) -> Option<ThenKernel> {
    k.then_avx512().filter(|_| {
        isa() == Isa::Avx512 && std::any::TypeId::of::<T>() == std::any::TypeId::of::<f32>()
    })
}

/// `out[i] = k(x[i]) op y[i]` (`y[i] op k(x[i])` unless `un_left`), on this thread: a fused
/// group's unary step merged with the arithmetic step that consumes it. `x` is `None` when
/// `out` holds the operand (the result goes over it; `y` is then not [`ThenArg::Out`]). The
/// values of [`map`] then [`zip`] (the same two roundings): in one pass where the kernel has an
/// AVX-512 loop of the pair ([`Unary::then_avx512`]), else in those two passes. `x`, `out`
/// and a `y` slice have the same length.
pub fn map_then<T: Scalar + 'static, K: Unary<T>>(
    k: K,
    op: Arith,
    un_left: bool,
    x: Option<&[T]>,
    y: ThenArg<'_, T>,
    out: &mut [T],
) where
    arith::Add: arith::Op<T>,
    arith::Sub: arith::Op<T>,
    arith::Mul: arith::Op<T>,
    arith::Div: arith::Op<T>,
{
    let n = out.len();
    assert!(
        x.is_none_or(|x| x.len() == n)
            && !matches!(y, ThenArg::Slice(s) if s.len() != n)
            && !(x.is_none() && matches!(y, ThenArg::Out))
    );
    #[cfg(target_arch = "x86_64")]
    if let Some(f) = then_kernel_f32(k) {
        let code = op as u8;
        let op_ = out.as_mut_ptr().cast::<f32>();
        let xp = x.map_or(op_.cast_const(), |x| x.as_ptr().cast::<f32>());
        let (yp, slice) = match &y {
            ThenArg::Slice(s) => (s.as_ptr().cast::<f32>(), true),
            ThenArg::Const(c) => ((c as *const T).cast::<f32>(), false),
            ThenArg::Out => (op_.cast_const(), true),
        };
        // SAFETY: AVX-512 was probed; `T` is f32 (checked), so the pointers are to f32; `x`,
        // `out` and a `y` slice hold `n` elements, a constant one; the loops allow `out` to
        // be `x` or `y`.
        unsafe { avx512::then_loop(f, code, un_left, slice, xp, yp, op_, n) };
        return;
    }
    // `out = k(x)` first, unless `y` is `out`'s own values.
    if !matches!(y, ThenArg::Out) {
        match x {
            Some(x) => map_chunk(k, x, out),
            None => map_chunk_inplace(k, out),
        }
    }
    with_arith!(op, o => match (x, y) {
        (_, ThenArg::Slice(y)) => {
            if un_left {
                zip_serial_inplace(o, out, y)
            } else {
                zip_serial_inplace(Swapped(o), out, y)
            }
        }
        (_, ThenArg::Const(c)) => {
            if un_left {
                map_chunk_inplace(Right(o, c), out)
            } else {
                map_chunk_inplace(Left(o, c), out)
            }
        }
        (Some(x), ThenArg::Out) => {
            const BLOCK: usize = 256;
            let Some(&first) = x.first() else { return };
            let mut tmp = [first; BLOCK];
            for (xs, os) in x.chunks(BLOCK).zip(out.chunks_mut(BLOCK)) {
                let t = &mut tmp[..xs.len()];
                map_chunk(k, xs, t);
                if un_left {
                    zip_serial_inplace(Swapped(o), os, t)
                } else {
                    zip_serial_inplace(o, os, t)
                }
            }
        }
        (None, ThenArg::Out) => unreachable!("checked above"),
    })
}

/// `out[i] = k(s op y[i])` (`k(y[i] op s)` unless `scaled_left`), `s = x[i] * c` (`c * x[i]`
/// unless `c_right`), on this thread, in one pass, when the kernel has an AVX-512 loop of it
/// (a fused group's merged product followed by a unary step; the roundings of the three unfused
/// loops in their order); returns whether it ran (the caller runs the passes otherwise).
/// `x`, `y` and `out` have the same length.
#[allow(clippy::too_many_arguments)]
pub fn scaled_then_map<T: Scalar + 'static, K: Unary<T>>(
    k: K,
    op: Arith,
    c: T,
    c_right: bool,
    scaled_left: bool,
    x: &[T],
    y: &[T],
    out: &mut [T],
) -> bool {
    let n = out.len();
    assert!(x.len() == n && y.len() == n);
    #[cfg(target_arch = "x86_64")]
    if let Some(f) = then_kernel_f32(k) {
        let (xp, yp, op_) = (
            x.as_ptr().cast::<f32>(),
            y.as_ptr().cast::<f32>(),
            out.as_mut_ptr().cast::<f32>(),
        );
        // SAFETY: AVX-512 was probed; `T` is f32 (checked), so `c` is one and the pointers are
        // to f32, each valid for `n` elements.
        unsafe {
            let c = *(&c as *const T).cast::<f32>();
            avx512::pre_loop(f, op as u8, c_right, scaled_left, xp, yp, c, op_, n)
        };
        return true;
    }
    let _ = (k, op, c, c_right, scaled_left);
    false
}

/// A fresh vector of `k(x[i])`.
pub fn map_vec<T: Scalar + Default, K: Unary<T>>(k: K, x: &[T]) -> Vec<T> {
    let mut out = vec![T::default(); x.len()];
    map(k, x, &mut out);
    out
}

/// Instantiates a non-generic `#[inline(always)]` function for the three instruction sets and
/// dispatches on [`isa`] (the reductions' counterpart of `multiversion!`).
macro_rules! multiversion_fn {
    ($vis:vis fn $name:ident($($arg:ident : $ty:ty),*) -> $ret:ty => $body:path) => {
        $vis fn $name($($arg: $ty),*) -> $ret {
            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl,avx2,fma")]
            fn v4($($arg: $ty),*) -> $ret {
                $body($($arg),*)
            }
            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx2,fma")]
            fn v3($($arg: $ty),*) -> $ret {
                $body($($arg),*)
            }
            match $crate::ops::vmath::isa() {
                // SAFETY: `isa()` reports only features the running CPU has.
                #[cfg(target_arch = "x86_64")]
                $crate::ops::vmath::Isa::Avx512 => unsafe { v4($($arg),*) },
                // SAFETY: as above.
                #[cfg(target_arch = "x86_64")]
                $crate::ops::vmath::Isa::Avx2Fma => unsafe { v3($($arg),*) },
                _ => $body($($arg),*),
            }
        }
    };
}
pub(crate) use multiversion_fn;

// ------------------------------------------------------------------------------ sums

/// f32 values summed in f64 with sixteen independent accumulators, combined pairwise. Each
/// block of 64 elements first adds elements `i`, `i + 16`, `i + 32`, `i + 48` in float32, as
/// `(a + b) + (c + d)`, and accumulator `i` takes that (the rest as [`acc16`] folds it: blocks
/// of 16 straight into the accumulators, then the last elements in order). Why the float32 step: widening every
/// element to f64 was bound by the conversions (500k elements, one thread: 34.7 µs against
/// 21.1 µs for a plain float32 sum); this converts a quarter of them. Its error is at most
/// `3 * 2^-24` of the sum of the four magnitudes per block, a smaller bound than PyTorch's
/// float32 cascade sum; four elements near `f32::MAX` can overflow a block (docs/kernels.md,
/// Reductions).
#[inline(always)]
fn sum_f32_body(v: &[f32]) -> f64 {
    let mut acc = [0f64; 16];
    let blocks = v.chunks_exact(64);
    let rest = blocks.remainder();
    for b in blocks {
        for i in 0..16 {
            acc[i] += ((b[i] + b[i + 16]) + (b[i + 32] + b[i + 48])) as f64;
        }
    }
    fold_lanes_from(acc, rest, |a, x| a + x as f64, pairwise_fixed)
}

/// Pairwise (cascade) f64 sum: blocks of 4096 summed with sixteen accumulators, halves recursed.
#[inline(always)]
fn sum_f64_body(v: &[f64]) -> f64 {
    cascade16(v, |x| x)
}

/// `sum term(x)` in f64: sixteen independent accumulators (vectorizes to 2-4 vector registers)
/// combined pairwise, then the remainder in order. The summation order of the f64-accumulated
/// reductions here.
#[inline(always)]
fn acc16<T: Copy>(v: &[T], term: impl Fn(T) -> f64) -> f64 {
    fold_lanes::<16, T>(v, 0.0, |a, x| a + term(x), pairwise_fixed)
}

/// `v` folded by `step` from `init` in `N` independent lanes (element `i` of each block of `N`
/// goes to lane `i`), the lanes reduced by `combine`, then the remainder folded in order.
#[inline(always)]
fn fold_lanes<const N: usize, T: Copy>(
    v: &[T],
    init: f64,
    step: impl Fn(f64, T) -> f64,
    combine: impl Fn(&[f64; N]) -> f64,
) -> f64 {
    fold_lanes_from([init; N], v, step, combine)
}

/// [`fold_lanes`] from the lane values `acc`.
#[inline(always)]
fn fold_lanes_from<const N: usize, T: Copy>(
    mut acc: [f64; N],
    v: &[T],
    step: impl Fn(f64, T) -> f64,
    combine: impl Fn(&[f64; N]) -> f64,
) -> f64 {
    let chunks = v.chunks_exact(N);
    let rest = chunks.remainder();
    for c in chunks {
        for i in 0..N {
            acc[i] = step(acc[i], c[i]);
        }
    }
    let mut s = combine(&acc);
    for &x in rest {
        s = step(s, x);
    }
    s
}

/// [`acc16`] of f64 values in blocks of at most 4096, halves recursed (a pairwise cascade).
#[inline(always)]
fn cascade16(v: &[f64], term: impl Fn(f64) -> f64 + Copy) -> f64 {
    if v.len() > 4096 {
        let mid = v.len() / 2;
        return cascade16(&v[..mid], term) + cascade16(&v[mid..], term);
    }
    acc16(v, term)
}

#[inline(always)]
fn pairwise_fixed(acc: &[f64; 16]) -> f64 {
    let mut a = *acc;
    let mut w = 16;
    while w > 1 {
        w /= 2;
        for i in 0..w {
            a[i] += a[i + w];
        }
    }
    a[0]
}

/// [`sum_f32_body`] with the AVX2 instructions written out: LLVM's vectorizer packs the sixteen
/// accumulators into eight 2-lane registers (a convert and an add per two elements), here four
/// 4-lane ones hold them (lane `i` of register `r` is accumulator `4r + i`: the same additions in
/// the same order, so the same bits).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn sum_f32_avx2(v: &[f32]) -> f64 {
    use std::arch::x86_64::*;
    let blocks = v.chunks_exact(64);
    let rest = blocks.remainder();
    let mut a = [_mm256_setzero_pd(); 4];
    for b in blocks {
        let p = b.as_ptr();
        // SAFETY: `b` holds 64 elements: the loads are in it.
        let x: [__m256; 8] = std::array::from_fn(|k| unsafe { _mm256_loadu_ps(p.add(8 * k)) });
        // Elements `i`, `i + 16`, `i + 32`, `i + 48` (lanes of registers `h`, `h + 2`, ...).
        for h in 0..2 {
            let t = _mm256_add_ps(
                _mm256_add_ps(x[h], x[h + 2]),
                _mm256_add_ps(x[h + 4], x[h + 6]),
            );
            a[2 * h] = _mm256_add_pd(a[2 * h], _mm256_cvtps_pd(_mm256_castps256_ps128(t)));
            a[2 * h + 1] =
                _mm256_add_pd(a[2 * h + 1], _mm256_cvtps_pd(_mm256_extractf128_ps::<1>(t)));
        }
    }
    let chunks = rest.chunks_exact(16);
    let rest = chunks.remainder();
    for c in chunks {
        let p = c.as_ptr();
        for (r, acc) in a.iter_mut().enumerate() {
            // SAFETY: `c` holds 16 elements, so `p + 4r .. p + 4r + 4` is in it.
            let x = unsafe { _mm_loadu_ps(p.add(4 * r)) };
            *acc = _mm256_add_pd(*acc, _mm256_cvtps_pd(x));
        }
    }
    let mut acc = [0f64; 16];
    for (r, x) in a.iter().enumerate() {
        // SAFETY: `acc[4r..4r + 4]` is in the array.
        unsafe { _mm256_storeu_pd(acc.as_mut_ptr().add(4 * r), *x) };
    }
    let mut s = pairwise_fixed(&acc);
    for &x in rest {
        s += x as f64;
    }
    s
}

fn sum_f32_serial(v: &[f32]) -> f64 {
    #[cfg(target_arch = "x86_64")]
    if isa() >= Isa::Avx2Fma {
        // SAFETY: `isa()` reports only features the running CPU has.
        return unsafe { sum_f32_avx2(v) };
    }
    sum_f32_body(v)
}
multiversion_fn!(fn sum_f64_serial(v: &[f64]) -> f64 => sum_f64_body);

/// Pairwise sum of partial sums (in order).
fn pairwise(v: &[f64]) -> f64 {
    match v.len() {
        0 => 0.0,
        1 => v[0],
        n => pairwise(&v[..n / 2]) + pairwise(&v[n / 2..]),
    }
}

/// Sums `v` chunk by chunk ([`PAR_CHUNK`] elements, on the pool when long), then the chunk sums
/// pairwise: the association order depends only on `v.len()`, never on the thread count.
fn chunked_sum<T: Sync>(v: &[T], serial: impl Fn(&[T]) -> f64 + Sync) -> f64 {
    if v.len() <= PAR_CHUNK {
        return serial(v);
    }
    let partials: Vec<f64> = if v.len() >= PAR_MIN && num_threads() > 1 {
        par::map_collect(v.len().div_ceil(PAR_CHUNK), |i| {
            serial(&v[i * PAR_CHUNK..((i + 1) * PAR_CHUNK).min(v.len())])
        })
    } else {
        v.chunks(PAR_CHUNK).map(&serial).collect()
    };
    pairwise(&partials)
}

/// `sum (x - m)^2` of f32 values in f64, sixteen accumulators (the second pass of var/std;
/// `m = 0` gives the squared 2-norm).
#[inline(always)]
fn sqdev_f32_body(v: &[f32], m: f64) -> f64 {
    acc16(v, |x| {
        let d = x as f64 - m;
        d * d
    })
}

/// `sum (x - m)^2` of f64 values, pairwise like [`sum_f64`].
#[inline(always)]
fn sqdev_f64_body(v: &[f64], m: f64) -> f64 {
    cascade16(v, |x| {
        let d = x - m;
        d * d
    })
}

/// `sum |x|` of f32 values in f64 (the 1-norm).
#[inline(always)]
fn abs_f32_body(v: &[f32]) -> f64 {
    acc16(v, |x| (x as f64).abs())
}

#[inline(always)]
fn abs_f64_body(v: &[f64]) -> f64 {
    cascade16(v, f64::abs)
}

/// Product of f32 values in f64 (or of f64 values), eight running products combined in order.
#[inline(always)]
fn prod_f32_body(v: &[f32]) -> f64 {
    prod8(v, |x| x as f64)
}

#[inline(always)]
fn prod_f64_body(v: &[f64]) -> f64 {
    prod8(v, |x| x)
}

/// Product of `widen(x)` in f64: eight running products combined in order, then the remainder.
#[inline(always)]
fn prod8<T: Copy>(v: &[T], widen: impl Fn(T) -> f64) -> f64 {
    fold_lanes::<8, T>(
        v,
        1.0,
        |p, x| p * widen(x),
        |a| ((a[0] * a[1]) * (a[2] * a[3])) * ((a[4] * a[5]) * (a[6] * a[7])),
    )
}

multiversion_fn!(fn sqdev_f32_serial(v: &[f32], m: f64) -> f64 => sqdev_f32_body);
multiversion_fn!(fn sqdev_f64_serial(v: &[f64], m: f64) -> f64 => sqdev_f64_body);
multiversion_fn!(fn abs_f32_serial(v: &[f32]) -> f64 => abs_f32_body);
multiversion_fn!(fn abs_f64_serial(v: &[f64]) -> f64 => abs_f64_body);
multiversion_fn!(pub fn prod_f32(v: &[f32]) -> f64 => prod_f32_body);
multiversion_fn!(pub fn prod_f64(v: &[f64]) -> f64 => prod_f64_body);

/// `sum (x - m)^2` over f32 values, accumulated in f64 (deterministic like [`sum_f32`]).
pub fn sqdev_f32(v: &[f32], m: f64) -> f64 {
    chunked_sum(v, |c| sqdev_f32_serial(c, m))
}

/// `sum (x - m)^2` over f64 values, pairwise.
pub fn sqdev_f64(v: &[f64], m: f64) -> f64 {
    chunked_sum(v, |c| sqdev_f64_serial(c, m))
}

/// `sum |x|` over f32 values, accumulated in f64.
pub fn abs_sum_f32(v: &[f32]) -> f64 {
    chunked_sum(v, abs_f32_serial)
}

/// `sum |x|` over f64 values, pairwise.
pub fn abs_sum_f64(v: &[f64]) -> f64 {
    chunked_sum(v, abs_f64_serial)
}

/// Sum of f32 values, accumulated in f64 (deterministic; see [`chunked_sum`]).
pub fn sum_f32(v: &[f32]) -> f64 {
    chunked_sum(v, sum_f32_serial)
}

/// Pairwise sum of f64 values (deterministic; see [`chunked_sum`]).
pub fn sum_f64(v: &[f64]) -> f64 {
    chunked_sum(v, sum_f64_serial)
}

// ------------------------------------------------------------------------------ helpers

#[inline(always)]
fn fma32<const F: bool>(a: f32, b: f32, c: f32) -> f32 {
    if F { a.mul_add(b, c) } else { a * b + c }
}

#[inline(always)]
fn fma64<const F: bool>(a: f64, b: f64, c: f64) -> f64 {
    if F { a.mul_add(b, c) } else { a * b + c }
}

/// Horner's rule, highest coefficient first.
#[inline(always)]
fn horner32<const F: bool>(x: f32, c: &[f32]) -> f32 {
    let mut p = c[0];
    for &k in &c[1..] {
        p = fma32::<F>(p, x, k);
    }
    p
}

#[inline(always)]
fn horner64<const F: bool>(x: f64, c: &[f64]) -> f64 {
    let mut p = c[0];
    for &k in &c[1..] {
        p = fma64::<F>(p, x, k);
    }
    p
}

/// `2^n` for `n` in `[-126, 127]`.
#[inline(always)]
fn pow2i_f32(n: i32) -> f32 {
    f32::from_bits((n.wrapping_add(127) as u32) << 23)
}

/// `2^n` for `n` in `[-1022, 1023]`.
#[inline(always)]
fn pow2i_f64(n: i64) -> f64 {
    f64::from_bits((n.wrapping_add(1023) as u64) << 52)
}

/// `x` clamped to `[lo, hi]` by selects (vectorizes; NaN passes through).
#[inline(always)]
#[allow(clippy::manual_clamp)]
fn clamp32(x: f32, lo: f32, hi: f32) -> f32 {
    if x < lo {
        lo
    } else if x > hi {
        hi
    } else {
        x
    }
}

#[inline(always)]
#[allow(clippy::manual_clamp)]
fn clamp64(x: f64, lo: f64, hi: f64) -> f64 {
    if x < lo {
        lo
    } else if x > hi {
        hi
    } else {
        x
    }
}

// 1.5 * 2^23 and 1.5 * 2^52: adding and subtracting rounds to the nearest integer, and the low
// mantissa bits of the sum hold that integer (integer-only extraction, which vectorizes).
pub(crate) const ROUND32: f32 = 12_582_912.0;
const ROUND64: f64 = 6_755_399_441_055_744.0;

// The constants of the exponential family below are public: native code computes `exp`,
// `expm1`, `tanh` and `sigmoid` inline (pyjit-codegen's `inline_math.rs`), with the same
// operations on the same constants, and must give these kernels' bits (its test
// `inline_math_matches_the_kernels` compares them over all of float32's exponents).

/// Cody-Waite reduction by ln 2 ([`reduce_ln2_f32`], [`reduce_ln2_f64`]): `nf = x log2e + round`
/// (one FMA in the FMA flavour) rounds `x log2e` to the integer `n`, which the low mantissa bits
/// of `nf` hold (`n = bits(nf) - bits(round)`); `r = (x - n ln2_hi) - n ln2_lo` (each step an
/// FMA in the FMA flavour).
#[derive(Clone, Copy, Debug)]
pub struct Ln2Reduction<T> {
    pub log2e: T,
    pub round: T,
    /// Few enough bits that `n * ln2_hi` is exact for every `n` the callers produce.
    pub ln2_hi: T,
    pub ln2_lo: T,
}

pub const LN2_REDUCTION_F32: Ln2Reduction<f32> = Ln2Reduction {
    log2e: std::f32::consts::LOG2_E,
    round: ROUND32,
    ln2_hi: 0.693_359_4, // 355/512
    ln2_lo: -2.121_944_4e-4,
};

pub const LN2_REDUCTION_F64: Ln2Reduction<f64> = Ln2Reduction {
    log2e: std::f64::consts::LOG2_E,
    round: ROUND64,
    // fdlibm's split: ln2_hi has 32 trailing zero bits.
    ln2_hi: 6.931_471_803_691_238_164_90e-1,
    ln2_lo: 1.908_214_929_270_587_700_02e-10,
};

/// `(n, r)` with `x = n ln2 + r`, `|r| <= ln2/2` ([`Ln2Reduction`]).
#[inline(always)]
fn reduce_ln2_f32<const F: bool>(x: f32) -> (i32, f32) {
    let c = LN2_REDUCTION_F32;
    let nf = fma32::<F>(x, c.log2e, c.round);
    let ni = (nf.to_bits() as i32).wrapping_sub(c.round.to_bits() as i32);
    let n = nf - c.round;
    let r = fma32::<F>(-n, c.ln2_hi, x);
    (ni, fma32::<F>(-n, c.ln2_lo, r))
}

#[inline(always)]
fn reduce_ln2_f64<const F: bool>(x: f64) -> (i64, f64) {
    let (n, r, _) = reduce_ln2_lo_f64::<F>(x);
    (n, r)
}

/// [`reduce_ln2_f64`] with the rounding error of its last step: `(n, r, rl)`, `x - n ln2 ~ r + rl`
/// (`r1 - r` is exact; `rl` itself is rounded, which no caller needs to the last bit).
#[inline(always)]
fn reduce_ln2_lo_f64<const F: bool>(x: f64) -> (i64, f64, f64) {
    let c = LN2_REDUCTION_F64;
    let nf = fma64::<F>(x, c.log2e, c.round);
    let ni = (nf.to_bits() as i64).wrapping_sub(c.round.to_bits() as i64);
    let n = nf - c.round;
    let r1 = fma64::<F>(-n, c.ln2_hi, x);
    let r = fma64::<F>(-n, c.ln2_lo, r1);
    (ni, r, fma64::<F>(-n, c.ln2_lo, r1 - r))
}

/// `e^r - 1 = r + r^2 P(r)` for `|r| <= 0.7`, f32: the coefficients of `P`, highest first
/// (Taylor to r^11: truncation < 2^-34 relative).
pub const EXPM1_POLY_F32: [f32; 10] = [
    1.0 / 39_916_800.0,
    1.0 / 3_628_800.0,
    1.0 / 362_880.0,
    1.0 / 40320.0,
    1.0 / 5040.0,
    1.0 / 720.0,
    1.0 / 120.0,
    1.0 / 24.0,
    1.0 / 6.0,
    0.5,
];

/// `e^r - 1` for `|r| <= 0.7`, f64 (Taylor to r^18: truncation < 2^-60 relative).
pub const EXPM1_POLY_WIDE_F64: [f64; 17] = [
    1.0 / 6_402_373_705_728_000.0,
    1.0 / 355_687_428_096_000.0,
    1.0 / 20_922_789_888_000.0,
    1.0 / 1_307_674_368_000.0,
    1.0 / 87_178_291_200.0,
    1.0 / 6_227_020_800.0,
    1.0 / 479_001_600.0,
    1.0 / 39_916_800.0,
    1.0 / 3_628_800.0,
    1.0 / 362_880.0,
    1.0 / 40_320.0,
    1.0 / 5_040.0,
    1.0 / 720.0,
    1.0 / 120.0,
    1.0 / 24.0,
    1.0 / 6.0,
    0.5,
];

/// `e^r - 1` for `|r| <= ln2/2`, f64 (Taylor to r^13: truncation < 2^-57 relative): the last
/// twelve coefficients of [`EXPM1_POLY_WIDE_F64`].
pub const EXPM1_POLY_F64: [f64; 12] = last_n(&EXPM1_POLY_WIDE_F64);

/// The last `M` entries of `a`.
const fn last_n<T: Copy, const N: usize, const M: usize>(a: &[T; N]) -> [T; M] {
    let mut out = [a[N - M]; M];
    let mut i = 0;
    while i < M {
        out[i] = a[N - M + i];
        i += 1;
    }
    out
}

/// `r + r^2 P(r)` (`P` by Horner's rule from `c`, highest first; then one FMA).
#[inline(always)]
fn expm1_poly32<const F: bool>(r: f32, c: &[f32]) -> f32 {
    fma32::<F>(horner32::<F>(r, c), r * r, r)
}

#[inline(always)]
fn expm1_poly64<const F: bool>(r: f64, c: &[f64]) -> f64 {
    fma64::<F>(horner64::<F>(r, c), r * r, r)
}

// ------------------------------------------------------------------------------ exp

/// The constants of `e^x` ([`exp_f32`], [`exp_f64`]): `x` clamped to `[lo, hi]` (past overflow
/// and past underflow to zero), reduced by ln 2 (`reduce`), `e^r = 1 + (r + r^2 P(r))` with
/// `P`'s coefficients `poly` (highest first), scaled by `2^(n >> 1) 2^(n - (n >> 1))` (two
/// factors so that results in the subnormal range round once).
#[derive(Clone, Copy, Debug)]
pub struct ExpConsts<T: 'static> {
    pub lo: T,
    pub hi: T,
    pub reduce: Ln2Reduction<T>,
    pub poly: &'static [T],
}

pub const EXP_F32: ExpConsts<f32> = ExpConsts {
    lo: -104.0,
    hi: 89.0,
    reduce: LN2_REDUCTION_F32,
    // Cephes' expf polynomial.
    poly: &[
        1.987_569_1e-4,
        1.398_199_9e-3,
        8.333_452e-3,
        4.166_579_6e-2,
        1.666_666_5e-1,
        0.5,
    ],
};

pub const EXP_F64: ExpConsts<f64> = ExpConsts {
    lo: -746.0,
    hi: 710.0,
    reduce: LN2_REDUCTION_F64,
    poly: &EXPM1_POLY_F64,
};

/// `e^x`, f32 ([`EXP_F32`]).
#[inline(always)]
pub fn exp_f32<const F: bool>(x: f32) -> f32 {
    let c = EXP_F32;
    let xc = clamp32(x, c.lo, c.hi);
    let (n, r) = reduce_ln2_f32::<F>(xc);
    let y = expm1_poly32::<F>(r, c.poly) + 1.0;
    let n1 = n >> 1;
    y * pow2i_f32(n1) * pow2i_f32(n - n1)
}

/// `e^x`, f64 ([`EXP_F64`]).
#[inline(always)]
pub fn exp_f64<const F: bool>(x: f64) -> f64 {
    let c = EXP_F64;
    let xc = clamp64(x, c.lo, c.hi);
    let (n, r) = reduce_ln2_f64::<F>(xc);
    let y = 1.0 + expm1_poly64::<F>(r, c.poly);
    let n1 = n >> 1;
    y * pow2i_f64(n1) * pow2i_f64(n - n1)
}

/// [`exp_for_f32`]'s clamp: `|t|` past every float32 overflow and underflow.
pub(crate) const EXP_FOR_F32_MAX: f64 = 200.0;
/// [`exp_for_f32`]'s polynomial: the Taylor polynomial cut at r^8 (the last seven coefficients
/// of [`EXPM1_POLY_WIDE_F64`]).
pub(crate) const EXP_FOR_F32_POLY: [f64; 7] = last_n(&EXPM1_POLY_WIDE_F64);

/// `e^t` in f64 for a result that is then rounded to float32: `t` clamped to ±200 (past every
/// float32 overflow and underflow, so one power-of-two scale suffices) and the Taylor
/// polynomial cut at r^8 (truncation below 2^-31 relative on `|r| <= ln2/2`).
#[inline(always)]
fn exp_for_f32<const F: bool>(t: f64) -> f64 {
    let tc = clamp64(t, -EXP_FOR_F32_MAX, EXP_FOR_F32_MAX);
    let (n, r) = reduce_ln2_f64::<F>(tc);
    let y = 1.0 + expm1_poly64::<F>(r, &EXP_FOR_F32_POLY);
    y * pow2i_f64(n)
}

/// The constants of `e^x - 1` ([`expm1_f32`], [`expm1_f64`]): `x` clamped to `[lo, hi]`,
/// reduced by ln 2 unless `|x| < near` (where the `n = ±1` recombination would round twice),
/// `e^r - 1 = r + r^2 P(r)` with `poly`; then `2^n (e^r - 1) + (2^n - 1)`.
#[derive(Clone, Copy, Debug)]
pub struct Expm1Consts<T: 'static> {
    pub lo: T,
    pub hi: T,
    /// Unreduced (`n = 0`, `r = x`) for `-near_neg < x < near`.
    pub near: T,
    pub near_neg: T,
    /// Below this `|x|`, `e^x - 1` rounds to `x` itself (`2^-25` in float32: `x^2/2` is under a
    /// quarter of `x`'s ulp), which is returned as it is (subnormals and `-0` included).
    pub tiny: T,
    /// The first `t = 2^(n-1)` for which `t - 1/2` is not representable (`2^24` in float32):
    /// from there the sum is rounded once by carrying the product's rounding error instead.
    pub wide_t: T,
    pub reduce: Ln2Reduction<T>,
    pub poly: &'static [T],
}

pub const EXPM1_F32: Expm1Consts<f32> = Expm1Consts {
    lo: -18.0,
    hi: 89.0,
    near: 0.5,
    near_neg: 0.0,
    tiny: 2.980_232_2e-8,
    wide_t: 16_777_216.0,
    reduce: LN2_REDUCTION_F32,
    poly: &EXPM1_POLY_F32,
};

pub const EXPM1_F64: Expm1Consts<f64> = Expm1Consts {
    lo: -40.0,
    hi: 709.8,
    near: 0.7,
    near_neg: 0.7,
    tiny: 5.551_115_123_125_783e-17,
    wide_t: 9_007_199_254_740_992.0,
    reduce: LN2_REDUCTION_F64,
    poly: &EXPM1_POLY_WIDE_F64,
};

/// `e^x - 1`, f32 ([`EXPM1_F32`]): `2^n (e^r - 1) + (2^n - 1)`, computed as
/// `2 (t p + (t - 1/2))` with `t = 2^(n-1)` so that `n = 128` needs no unrepresentable `2^128`
/// (`t p` is exact: `t` is a power of two). From `t = 2^24` on, where `t - 1/2` would round,
/// `2 (s + (e - 1/2))` instead, with `s = t p + t` rounded and `e` its rounding error (`t - s`
/// is exact: `s / t = 1 + p` lies in `[0.7, 1.42]`), so the sum is still rounded once in effect.
#[inline(always)]
pub fn expm1_f32<const F: bool>(x: f32) -> f32 {
    let c = EXPM1_F32;
    let xc = clamp32(x, c.lo, c.hi);
    let (n, r) = reduce_ln2_f32::<F>(xc);
    let near = x < c.near && x > -c.near_neg;
    let (n, r) = if near { (0, x) } else { (n, r) };
    let p = expm1_poly32::<F>(r, c.poly);
    let t = pow2i_f32(n - 1);
    let s = fma32::<F>(t, p, t);
    let e = fma32::<F>(t, p, t - s);
    let wide = 2.0 * (s + (e - 0.5));
    let y = 2.0 * fma32::<F>(t, p, t - 0.5);
    let y = if t < c.wide_t { y } else { wide };
    if x.abs() < c.tiny { x } else { y }
}

/// `e^x - 1`, f64 ([`EXPM1_F64`]), as [`expm1_f32`] but for the reduced form below `wide_t`:
/// there the reduction's rounding error `rl` is carried (`e^(r + rl) - 1 ~ p + rl (1 + p)`) and
/// `(t - 1/2) + t p` is summed by Fast2Sum (`|t - 1/2| >= |t p|` or `t = 1/2`), the small terms
/// added to its error, so the result rounds ~once (1.07 ulp without, against mpmath).
#[inline(always)]
pub fn expm1_f64<const F: bool>(x: f64) -> f64 {
    let c = EXPM1_F64;
    let xc = clamp64(x, c.lo, c.hi);
    let (n, r, rl) = reduce_ln2_lo_f64::<F>(xc);
    let near = x < c.near && x > -c.near_neg;
    let (n, r, rl) = if near { (0, x, 0.0) } else { (n, r, rl) };
    let p = expm1_poly64::<F>(r, c.poly);
    let t = pow2i_f64(n - 1);
    let s = fma64::<F>(t, p, t);
    let e = fma64::<F>(t, p, t - s);
    let wide = 2.0 * (s + (e - 0.5));
    let h = t - 0.5;
    let m = t * p;
    let sum = h + m;
    let err = (h - sum) + m;
    let y = 2.0 * (sum + fma64::<F>(t, fma64::<F>(rl, p, rl), err));
    let y = if t < c.wide_t { y } else { wide };
    if x.abs() < c.tiny { x } else { y }
}

// ------------------------------------------------------------------------------ log

/// `ln x`, f32 (musl's logf scheme: `x = 2^k (1+f)` with `1+f` in `[sqrt(1/2), sqrt(2))`,
/// `log(1+f) = f - f^2/2 + s (f^2/2 + R(s^2))`, `s = f/(2+f)`).
#[inline(always)]
pub fn log_f32<const F: bool>(x: f32) -> f32 {
    let sub = x < f32::MIN_POSITIVE;
    let xs = if sub { x * 33_554_432.0 } else { x }; // 2^25
    let ix = xs.to_bits().wrapping_add(0x3f80_0000 - 0x3f35_04f3);
    let k = ((ix >> 23) as i32) - 0x7f - if sub { 25 } else { 0 };
    let m = f32::from_bits((ix & 0x007f_ffff) + 0x3f35_04f3);
    let f = m - 1.0;
    let s = f / (2.0 + f);
    let z = s * s;
    let w = z * z;
    let t1 = w * fma32::<F>(w, 0.242_790_79, 0.400_009_72);
    let t2 = z * fma32::<F>(w, 0.284_987_87, 0.666_666_6);
    let hfsq = 0.5 * f * f;
    let dk = k as f32;
    let y = fma32::<F>(s, hfsq + (t2 + t1), dk * 9.058_000_6e-6) - hfsq + f;
    let y = fma32::<F>(dk, 6.931_381_2e-1, y);
    if x == 0.0 {
        f32::NEG_INFINITY
    } else if !(x >= 0.0) {
        f32::NAN
    } else if x == f32::INFINITY {
        x
    } else {
        y
    }
}

/// `(k, f, s, hfsq, R)` of fdlibm's log for positive finite `x`.
#[inline(always)]
fn log_parts_f64<const F: bool>(x: f64) -> (f64, f64) {
    let sub = x < f64::MIN_POSITIVE;
    let xs = if sub { x * 18_014_398_509_481_984.0 } else { x }; // 2^54
    let (k, f) = log_parts_normal_f64(xs);
    (k - if sub { 54.0 } else { 0.0 }, f)
}

/// The high word of `sqrt(1/2)` (rounded down) in place, and what [`log_parts_normal_f64`] adds
/// to `x`'s bits so that the exponent field counts from it.
pub(crate) const LOG_SQRT_HALF_F64: u64 = 0x3fe6_a09e << 32;
pub(crate) const LOG_OFFSET_F64: u64 = (0x3ff0_0000 << 32) - LOG_SQRT_HALF_F64;

/// [`log_parts_f64`] of a positive normal `x` (no subnormal scaling).
#[inline(always)]
fn log_parts_normal_f64(x: f64) -> (f64, f64) {
    let ix = x.to_bits().wrapping_add(LOG_OFFSET_F64);
    let k = ((ix >> 52) as i64) - 0x3ff;
    let m = f64::from_bits((ix & 0x000f_ffff_ffff_ffff) + LOG_SQRT_HALF_F64);
    (k as f64, m - 1.0)
}

/// fdlibm's `Lg1..Lg7` (e_log.c), the coefficients of `log(1+f)`'s `R(s^2)`.
pub(crate) const LOG_LG_F64: [f64; 7] = [
    6.666_666_666_666_735_13e-1,
    3.999_999_999_940_941_908e-1,
    2.857_142_874_366_239_149e-1,
    2.222_219_843_214_978_396e-1,
    1.818_357_216_161_805_012e-1,
    1.531_383_769_920_937_332e-1,
    1.479_819_860_511_658_591e-1,
];
/// fdlibm's split of ln 2 for `k ln2` (`ln2_hi` has 32 trailing zero bits).
pub(crate) const LOG_LN2_HI_F64: f64 = 6.931_471_803_691_238_164_90e-1;
pub(crate) const LOG_LN2_LO_F64: f64 = 1.908_214_929_270_587_700_02e-10;

/// `log(1+f) - f` for `1+f` in `[sqrt(1/2), sqrt(2))`, split as fdlibm does so that callers can
/// add `f` and `k ln2` last.
#[inline(always)]
fn log1p_core_f64<const F: bool>(f: f64, dk: f64) -> f64 {
    const LG: [f64; 7] = LOG_LG_F64;
    let s = f / (2.0 + f);
    let z = s * s;
    let w = z * z;
    let t1 = w * horner64::<F>(w, &[LG[5], LG[3], LG[1]]);
    let t2 = z * horner64::<F>(w, &[LG[6], LG[4], LG[2], LG[0]]);
    let hfsq = 0.5 * f * f;
    fma64::<F>(s, hfsq + (t2 + t1), dk * LOG_LN2_LO_F64) - hfsq
}

/// `ln x`, f64 (fdlibm's e_log scheme).
#[inline(always)]
pub fn log_f64<const F: bool>(x: f64) -> f64 {
    log_from_parts_f64::<F>(x, log_parts_f64::<F>(x))
}

/// `ln x` of a float32 widened to f64 (never an f64 subnormal, so no pre-scaling).
#[inline(always)]
fn log_of_f32_f64<const F: bool>(x: f64) -> f64 {
    log_from_parts_f64::<F>(x, log_parts_normal_f64(x))
}

/// `ln x` from `x`'s [`log_parts_f64`], with the special values.
#[inline(always)]
fn log_from_parts_f64<const F: bool>(x: f64, (dk, f): (f64, f64)) -> f64 {
    special_log(
        x,
        fma64::<F>(dk, LOG_LN2_HI_F64, log1p_core_f64::<F>(f, dk) + f),
    )
}

/// `ln(1+x)`, f64: `log(u) - ((u-1) - x)/u` with `u = 1 + x` (the quotient corrects the
/// rounding of `u`), the correction subtracted from `log(u)`'s small terms before `f` and
/// `k ln2_hi` are added (as fdlibm's s_log1p), so that it costs no rounding of its own.
#[inline(always)]
pub fn log1p_f64<const F: bool>(x: f64) -> f64 {
    let u = 1.0 + x;
    let corr = ((u - 1.0) - x) / u;
    let (dk, f) = log_parts_f64::<F>(u);
    let y = special_log(
        u,
        fma64::<F>(dk, LOG_LN2_HI_F64, (log1p_core_f64::<F>(f, dk) - corr) + f),
    );
    if u == 1.0 {
        x
    } else if x == -1.0 {
        f64::NEG_INFINITY
    } else if x == f64::INFINITY {
        x
    } else {
        y
    }
}

// ------------------------------------------------------------------------------ tanh, sigmoid

/// The constants of `tanh x`, f32 ([`tanh_f32`]): below `small`, `x + x^3 P(x^2)` with `poly`
/// (Cephes' odd polynomial, highest first).
pub const TANH_F32_SMALL: f32 = 0.625;
pub const TANH_F32_POLY: [f32; 5] = [
    -5.704_988_7e-3,
    2.063_908_9e-2,
    -5.373_971_6e-2,
    1.333_144_2e-1,
    -3.333_328_2e-1,
];
/// Below this `|x|`, [`tanh_f64`] takes its polynomial form.
pub const TANH_F64_SMALL: f64 = 0.55;

/// `tanh x`, f32: Cephes' odd polynomial below [`TANH_F32_SMALL`], `1 - 2/(e^(2|x|) + 1)` above
/// (where the error of `e^(2|x|)` is damped by the quotient).
#[inline(always)]
pub fn tanh_f32<const F: bool>(x: f32) -> f32 {
    let a = x.abs();
    let z = x * x;
    let small = fma32::<F>(horner32::<F>(z, &TANH_F32_POLY) * z, x, x);
    let big = tanh_big_f32::<F>(a);
    (if a < TANH_F32_SMALL { small } else { big }).copysign(x)
}

/// `2|x|` is clamped here in [`tanh_big_f32`] (float32 `tanh` is 1 from 9.01 on).
pub const TANH_F32_CLAMP: f32 = 20.0;

/// `tanh_big_f32` / `tanh_big_f64`: `1 - 2/(e^(2a) + 1)` for `a >= 0` ([`tanh_f32`] above
/// [`TANH_F32_SMALL`], [`tanh_f64`] above [`TANH_F64_SMALL`]) with the denominator and the
/// quotient each carried as a rounded value and its error: with `e^(2a) = 2^n (1 + p)`
/// ([`EXP_F32`]'s / [`EXP_F64`]'s reduction and polynomial), `d = (2^n + 1) + 2^n p` rounded
/// once and its rounding error `de` (Fast2Sum; `2^n + 1` and `2^n p` are exact while `2^n`
/// has fewer bits than the precision), `q0 = 2/d` and the quotient's remainder
/// `2 - q0 (d + de)` (exact with an FMA, or from [`two_prod32`] / [`two_prod64`]) give
/// `q = q0 + remainder q0/2`, and the result `1 - q` rounds ~once.
macro_rules! tanh_big {
    ($name:ident, $t:ty, $clamp:ident, $max:expr, $reduce:ident, $poly:ident, $exp:expr,
     $pow2i:ident, $fma:ident, $two_prod:ident) => {
        #[inline(always)]
        fn $name<const F: bool>(a: $t) -> $t {
            let t = $clamp(2.0 * a, 0.0, $max);
            let (n, r) = $reduce::<F>(t);
            let p = $poly::<F>(r, $exp.poly);
            let s = $pow2i(n);
            let s1 = s + 1.0;
            let sp = s * p;
            let d = s1 + sp;
            let de = (s1 - d) + sp;
            let q0 = 2.0 / d;
            let rem = if F {
                $fma::<F>(-q0, d, 2.0)
            } else {
                let (qd, qde) = $two_prod::<F>(q0, d);
                (2.0 - qd) - qde
            };
            let rem = $fma::<F>(-q0, de, rem);
            1.0 - $fma::<F>(rem * q0, 0.5, q0)
        }
    };
}
tanh_big!(
    tanh_big_f32,
    f32,
    clamp32,
    TANH_F32_CLAMP,
    reduce_ln2_f32,
    expm1_poly32,
    EXP_F32,
    pow2i_f32,
    fma32,
    two_prod32
);
tanh_big!(
    tanh_big_f64,
    f64,
    clamp64,
    TANH_F64_CLAMP,
    reduce_ln2_f64,
    expm1_poly64,
    EXP_F64,
    pow2i_f64,
    fma64,
    two_prod64
);

/// `tanh x`, f64: `x + x z Q(z)` (z = x^2, [`TANH_F64_POLY`]) below [`TANH_F64_SMALL`],
/// [`tanh_big_f64`] above.
#[inline(always)]
pub fn tanh_f64<const F: bool>(x: f64) -> f64 {
    let a = x.abs();
    let z = x * x;
    let small = fma64::<F>(horner64::<F>(z, &TANH_F64_POLY) * z, x, x);
    let big = tanh_big_f64::<F>(a);
    (if a < TANH_F64_SMALL { small } else { big }).copysign(x)
}

/// `2|x|` is clamped here in [`tanh_big_f64`] (float64 `tanh` is 1 from 19.07 on).
pub const TANH_F64_CLAMP: f64 = 40.0;
/// `tanh(x)/x = 1 + z Q(z)` on `z = x^2 <= 0.55^2`, highest coefficient first: least squares
/// in the relative error, float64 coefficients, within 5.9e-19 (`tools/fit_tanh_f64.py 0.55 11`).
pub const TANH_F64_POLY: [f64; 11] = [
    -1.948_222_353_056_102_2e-5,
    8.329_602_497_642_63e-5,
    -2.333_671_660_893_567_6e-4,
    5.884_387_766_262_006e-4,
    -1.455_541_449_593_189_8e-3,
    3.592_091_813_351_944_8e-3,
    -8.863_232_580_109_766e-3,
    2.186_948_838_458_437e-2,
    -5.396_825_396_371_866e-2,
    1.333_333_333_332_655_8e-1,
    -3.333_333_333_333_33e-1,
];

/// `1/(1+e^-x)`, computed from `t = e^-|x|` (never overflows) as `1/(1+t)` or `t/(1+t)`.
/// The rounding error of `1 + t` is fed back (Fast2Sum: `1 >= t`) so the result rounds ~once
/// after the exponential.
#[inline(always)]
pub fn sigmoid_f32<const F: bool>(x: f32) -> f32 {
    let t = exp_f32::<F>(-x.abs());
    let num = if x >= 0.0 { 1.0 } else { t };
    let s = 1.0 + t;
    let err = (1.0 - s) + t;
    let q = num / s;
    fma32::<F>(-q, err / s, q)
}

#[inline(always)]
pub fn sigmoid_f64<const F: bool>(x: f64) -> f64 {
    let t = exp_f64::<F>(-x.abs());
    let num = if x >= 0.0 { 1.0 } else { t };
    num / (1.0 + t)
}

/// `x * sigmoid(x)`, f32 evaluated in f64 (`x e^x` for very negative `x` is subnormal in f32,
/// and an f32 product would round twice there).
#[inline(always)]
pub fn silu_f32<const F: bool>(x: f32) -> f32 {
    silu_f64::<F>(x as f64) as f32
}

#[inline(always)]
pub fn silu_f64<const F: bool>(x: f64) -> f64 {
    let t = exp_f64::<F>(-x.abs());
    let num = if x >= 0.0 { x } else { x * t };
    num / (1.0 + t)
}

/// gelu with the tanh approximation: `x/2 (1 + tanh u) = x sigmoid(2u)`,
/// `u = sqrt(2/pi) (x + 0.044715 x^3)` (no cancellation for negative `x`).
/// f32 evaluated in f64: for negative `x` the result is `~x e^(2u)`, and the rounding error of
/// an f32 `u` would be multiplied by `|2u|` (~100 ulp at x = -10, as in PyTorch's own kernel).
/// At ±inf PyTorch's `0.5 x (1 + tanh u)` gives inf and NaN; so does `x sigmoid(2u)`.
#[inline(always)]
pub fn gelu_tanh_f32<const F: bool>(x: f32) -> f32 {
    gelu_tanh_f64::<F>(x as f64) as f32
}

#[inline(always)]
pub fn gelu_tanh_f64<const F: bool>(x: f64) -> f64 {
    const K2: f64 = 2.0 * 0.797_884_560_802_865_4;
    let u2 = K2 * fma64::<F>(0.044_715 * x * x, x, x);
    x * sigmoid_f64::<F>(u2)
}

// ------------------------------------------------------------------------------ erf

// float32-native erf and gelu(erf). erf's coefficients (tools/fit_erf_f32.py) are least-squares fits in
// the relative error (mpmath, 300 Chebyshev points), each coefficient rounded to float32 in turn
// and the rest refitted; the errors quoted are the rounded fits' own on 3,000 points. The
// constant terms are `hi + lo` pairs, so their rounding costs nothing. gelu(erf)'s table
// (tools/fit_gelu_table_f32.py) is fitted the same way.

/// `erf(a)/a = C0 + z Q(z)`, `z = a^2 <= 1`: `C0 = 2/sqrt(pi)` as `hi + lo`, `Q` highest first
/// (fit error 1.7e-10 relative).
const ERF32_C0: (f32, f32) = (std::f32::consts::FRAC_2_SQRT_PI, -5.863_538_3e-8);
const ERF32_Q: [f32; 7] = [
    -9.321_609_5e-6,
    1.113_901e-4,
    -8.465_585e-4,
    5.219_680_7e-3,
    -2.686_491_8e-2,
    1.128_377_3e-1,
    -3.761_263_8e-1,
];
/// `g(t) = (X/2) erfcx(X/sqrt 2) = G0 + t Q(t)`, `t = (X-1)/(X+1)` for `X` in `[0.7, 15]`
/// (fit error 1.5e-9). The centre `X = 1` keeps the map's error amplification small: a relative
/// error of `t` (the roundings of `X + 1`, `X - 1` and the quotient) moves `g` by at most 0.2
/// times as much, relatively, over the range; the f64 kernels' `(a-3)/(a+3)` amplified it by
/// 1.7 at `a = 0.5`, which a float32 evaluation cannot afford.
const ERFC32_G0: (f32, f32) = (2.615_782_9e-1, 2.105_365_7e-10);
const ERFC32_Q: [f32; 12] = [
    1.304_620_1e-2,
    -4.199_927e-2,
    4.728_612_7e-2,
    -2.842_597_3e-2,
    1.031_585_7e-2,
    6.742_650_6e-3,
    8.293_317_6e-3,
    3.142_146_9e-3,
    -1.941_167_4e-2,
    -5.745_529e-2,
    -5.259_878_6e-2,
    2.484_286_1e-1,
];
/// `e^r - 1 = r + r^2 P(r)` on `|r| <= ln2/2`: Taylor to r^8 (truncation < 2^-32 relative),
/// the tail of [`EXPM1_POLY_F32`].
pub(crate) const EXPM1_F32_SHORT: [f32; 7] = last_n(&EXPM1_POLY_F32);

/// `two_prod32` / `two_prod64`: `(p, e)` with `p + e = a b` (no overflow or underflow): an
/// FMA for `e` (exact), or, without one, Dekker's product of the halves that
/// [`TWO_PROD32_MASK`] / [`TWO_PROD64_MASK`] make (float32: 12-bit halves, exact; float64:
/// halves of 26 and 27 bits, exact but for the rounding of the low halves' product, below
/// 2^-104 |p|).
macro_rules! two_prod {
    ($name:ident, $t:ty, $fma:ident, $tiny:expr, $mask:expr) => {
        #[inline(always)]
        fn $name<const F: bool>(a: $t, b: $t) -> ($t, $t) {
            let p = a * b;
            if F {
                (p, $fma::<F>(a, b, -p))
            } else if p.abs() < $tiny {
                // (The halves' products would round in the subnormal range.)
                (p, 0.0)
            } else {
                let split = |v: $t| {
                    let h = <$t>::from_bits(v.to_bits() & $mask);
                    (h, v - h)
                };
                let (ah, al) = split(a);
                let (bh, bl) = split(b);
                (p, (((ah * bh - p) + ah * bl) + al * bh) + al * bl)
            }
        }
    };
}
two_prod!(two_prod32, f32, fma32, TWO_PROD32_TINY, TWO_PROD32_MASK);
two_prod!(two_prod64, f64, fma64, TWO_PROD64_TINY, TWO_PROD64_MASK);

/// The bits [`two_prod32`] keeps of a float32 for its high half (12 of 24 significant bits).
pub const TWO_PROD32_MASK: u32 = 0xffff_f000;
/// The bits [`two_prod64`] keeps of a float64 for its high half (26 of 53 significant bits).
pub const TWO_PROD64_MASK: u64 = 0xffff_ffff_f800_0000;
/// Below these `|a b|`, [`two_prod32`] / [`two_prod64`] without an FMA give an error term of 0.
pub const TWO_PROD32_TINY: f32 = 1e-30;
pub const TWO_PROD64_TINY: f64 = 1e-290;

/// `e^-(h + l)/2 = 2^n (1 + r + s)` for `0 <= h <= 256`, `|l| <= ulp(h)`: `(n, r, s)` with
/// `|r| <= ln2/2` and `s = e^r - 1 - r` plus the low part of the reduced argument (the rounding
/// of `r`, computed by an FMA, and `l`), `|s| < 0.07`. Nothing of the result's size is rounded
/// here: [`times_exp32`] multiplies it in.
#[inline(always)]
fn exp_neg_half32<const F: bool>(h: f32, l: f32) -> (i32, f32, f32) {
    let c = LN2_REDUCTION_F32;
    let t = -0.5 * h;
    let nf = fma32::<F>(t, c.log2e, c.round);
    let ni = (nf.to_bits() as i32).wrapping_sub(c.round.to_bits() as i32);
    let n = nf - c.round;
    // n ln2_hi is exact (9 + 9 bits) and so is t - n ln2_hi (Cody-Waite).
    let r1 = fma32::<F>(-n, c.ln2_hi, t);
    let r = fma32::<F>(-n, c.ln2_lo, r1);
    let rl = fma32::<F>(-n, c.ln2_lo, r1 - r) - 0.5 * l;
    let q2 = (r * r) * horner32::<F>(r, &EXPM1_F32_SHORT);
    // e^(r + rl) = (1 + r + q2)(1 + rl) to 2^-36.
    (ni, r, q2 + fma32::<F>(rl, r + q2, rl))
}

/// `(hi + lo)(1 + r + s)` ([`exp_neg_half32`]) for `|lo| < |hi|/2`, rounded once at the end:
/// `hi + hi r` by an exact product and Fast2Sum, the rest (`lo (1 + r)`, `(hi + lo) s` and the
/// low parts) added to it.
#[inline(always)]
fn times_exp32<const F: bool>(hi: f32, lo: f32, r: f32, s: f32) -> f32 {
    let (hr, hrl) = two_prod32::<F>(hi, r);
    let sum = hi + hr;
    let se = (hi - sum) + hr;
    let low = fma32::<F>(hi + lo, s, fma32::<F>(lo, r, lo) + (se + hrl));
    sum + low
}

/// `m 2^n` for `m` in `[0.1, 1]` and `n >= -160`, rounded once (two factors when subnormal).
#[inline(always)]
fn scale2_32(m: f32, n: i32) -> f32 {
    let n1 = n >> 1;
    m * pow2i_f32(n1) * pow2i_f32(n - n1)
}

/// `g((X-1)/(X+1)) - G0_hi` ([`ERFC32_Q`]) for `X` in `[0.7, 15]` (`g = G0_hi +` this).
#[inline(always)]
fn erfc32_g_low<const F: bool>(x: f32) -> f32 {
    let t = (x - 1.0) / (x + 1.0);
    fma32::<F>(t, horner32::<F>(t, &ERFC32_Q), ERFC32_G0.1)
}

/// `erf x`, f32, float32 arithmetic: below `|x| = 1` `a (C0 + z Q(z))` ([`ERF32_Q`], the
/// rounding errors of `z = a^2` and of `a C0` carried); above, `1 - erfc a` with
/// `erfc a = e^(-a^2) 2 g(t)/X`, `X = a sqrt 2` ([`erfc32_g`]), `a^2` an exact pair and the
/// exponential [`exp_neg_half32`] of `2a^2`. (erfc < 0.16 there, so its relative error is damped
/// six-fold in erf.) `|x| >= 4` gives ±1.
#[inline(always)]
pub fn erf_f32<const F: bool>(x: f32) -> f32 {
    let a = x.abs();
    // a C0 + (a z) q0 + (a z) z Q2(z) with Q = q0 + z Q2: the two leading products as exact
    // pairs, added by Fast2Sum (|a C0| > |a^3 q0|), so that what is rounded before the last
    // addition is at most ~a^5/10.
    let (z, zl) = two_prod32::<F>(a, a);
    let (u, ul) = two_prod32::<F>(a, z);
    let (p1, e1) = two_prod32::<F>(a, ERF32_C0.0);
    let (p2, e2) = two_prod32::<F>(u, ERF32_Q[6]);
    let s = p1 + p2;
    let se = (p1 - s) + p2;
    // (z + zl) Q(z + zl) = z Q(z) + zl (Q + z Q') to 2^-48, Q + z Q' ~ q0 + 2 q1 z.
    let dq = fma32::<F>(z, 2.0 * ERF32_Q[5], ERF32_Q[6]);
    let low = fma32::<F>(a, ERF32_C0.1, (e1 + e2) + se);
    let low = fma32::<F>(fma32::<F>(a, zl, ul), ERF32_Q[6], low);
    let low = fma32::<F>(a * zl, dq - ERF32_Q[6], low);
    let low = fma32::<F>(u * z, horner32::<F>(z, &ERF32_Q[..6]), low);
    let small = s + low;
    // Below 2^-60 erf is a C0 to 2^-120, evaluated 2^64 times larger so that the pair's low
    // part is not lost to the subnormal range, then scaled back (one rounding).
    let at = a * 18_446_744_073_709_551_616.0;
    let (tp, te) = two_prod32::<F>(at, ERF32_C0.0);
    let tiny = (tp + fma32::<F>(at, ERF32_C0.1, te)) * 5.421_010_9e-20;
    let small = if a < 8.673_617_4e-19 { tiny } else { small };
    // erfc: X = a sqrt2, clamped to 4 sqrt 2 (erf rounds to 1 beyond 3.92; NaN passes).
    let ac = clamp32(a, 1.0, 4.0);
    let xs = ac * std::f32::consts::SQRT_2;
    let g = ERFC32_G0.0 + erfc32_g_low::<F>(xs);
    let (h, l) = two_prod32::<F>(ac, ac);
    let (n, r, se) = exp_neg_half32::<F>(2.0 * h, 2.0 * l);
    let q = (g + g) / xs;
    let erfc = scale2_32(times_exp32::<F>(q, 0.0, r, se), n);
    let big = 1.0 - erfc;
    (if a < 1.0 { small } else { big }).copysign(x)
}

/// gelu(erf)'s local polynomials (tools/fit_gelu_table_f32.py 6): row `k` covers
/// `|a - k/2| <= 1/4` (row 0: `0 <= a <= 1/4`) as `c0_hi + (c0_lo + t Q(t))`, `t = a - k/2`,
/// `Q` highest first, approximating `R(a) = erfcx(a/sqrt 2)/2`, within 3.7e-9 relative (the
/// rounded fits; `|t Q(t)| <= 0.21 R`).
#[rustfmt::skip]
const GELU32_TABLE: [(f32, f32, [f32; 6]); 31] = [
    (0.5, 0.0, [0.007366873789578676, -0.025491492822766304, 0.06229120492935181, -0.13295979797840118, 0.24999897181987762, -0.3989422619342804]),
    (0.3496188223361969, 1.2384201220072555e-08, [0.0031064506620168686, -0.008815468288958073, 0.022829359397292137, -0.05491114780306816, 0.11877619475126266, -0.22413289546966553]),
    (0.2615782916545868, 2.1053657428549144e-10, [0.0010241331765428185, -0.0032017864286899567, 0.009255122393369675, -0.02508438564836979, 0.062107153236866, -0.137364000082016]),
    (0.20578067004680634, -3.0694116137652827e-09, [0.00036986966733820736, -0.0012754651252180338, 0.004110386595129967, -0.01249681692570448, 0.03518687188625336, -0.09027127921581268]),
    (0.16810199618339539, 5.039775263782076e-09, [0.00014578396803699434, -0.0005533678340725601, 0.0019761042203754187, -0.006704249419271946, 0.021312721073627472, -0.06273827701807022]),
    (0.14133132994174957, 1.4388257252306857e-09, [6.270509766181931e-05, -0.00025881026522256434, 0.0010175874922424555, -0.003831097623333335, 0.01364822592586279, -0.04561395198106766]),
    (0.12151394784450531, 5.110568634947299e-10, [2.9174116207286716e-05, -0.00012993757263757288, 0.0005561624420806766, -0.0023103912826627493, 0.009156322106719017, -0.03440043702721596]),
    (0.10634515434503555, -7.113301059291643e-10, [1.3768037206318695e-05, -6.770673644496128e-05, 0.00032016439945437014, -0.001459171762689948, 0.006387651897966862, -0.0267342422157526]),
    (0.09441064298152924, -1.6795602686414668e-09, [7.379753697023261e-06, -3.818464756477624e-05, 0.00019273119687568396, -0.0009586696978658438, 0.004605890717357397, -0.02129971608519554]),
    (0.08480339497327805, -2.8654776329517517e-09, [3.861318873532582e-06, -2.1975018171360716e-05, 0.00012069186777807772, -0.0006517897127196193, 0.003415910294279456, -0.017327016219496727]),
    (0.0769193023443222, 2.630684114990345e-09, [2.198174115619622e-06, -1.3271481293486431e-05, 7.821211329428479e-05, -0.00045646430226042867, 0.0025952637661248446, -0.01434575580060482]),
    (0.07034269720315933, -3.1780313936025095e-09, [1.3030652326051495e-06, -8.379974133276846e-06, 5.224032065598294e-05, -0.0003280425735283643, 0.0020133231300860643, -0.012057463638484478]),
    (0.06477931141853333, 2.9059135098208344e-09, [7.522480700572487e-07, -5.176764261705102e-06, 3.5842207580571994e-05, -0.00024118881265167147, 0.001590473810210824, -0.010266394354403019]),
    (0.06001567468047142, 6.627003945602894e-10, [4.2802176380973833e-07, -3.340443527122261e-06, 2.518339897505939e-05, -0.00018090916273649782, 0.0012765679275617003, -0.008840390481054783]),
    (0.05589348077774048, 1.662800008794818e-09, [3.07368878793568e-07, -2.4233409021690022e-06, 1.8067114069708623e-05, -0.00013810722157359123, 0.0010390796232968569, -0.0076879034750163555]),
    (0.052293095737695694, 1.3804990484089785e-09, [1.5540685183168534e-07, -1.4940243318051216e-06, 1.3216263141657691e-05, -0.0001071436345227994, 0.000856353435665369, -0.006744051817804575]),
    (0.04912254586815834, 3.44266587459785e-10, [1.5545400344763038e-07, -1.2033100347252912e-06, 9.826316272665281e-06, -8.428328874288127e-05, 0.0007136303465813398, -0.00596191082149744]),
    (0.04631004482507706, -1.7441695865372253e-09, [4.925332319771769e-08, -6.77436162277445e-07, 7.4282656896684784e-06, -6.718082295265049e-05, 0.0006006360636092722, -0.005306913983076811]),
    (0.043798789381980896, -5.111140954916493e-10, [8.539739582147376e-08, -7.183487582551606e-07, 5.685748419637093e-06, -5.4136755352374166e-05, 0.0005100819398649037, -0.004753180779516697]),
    (0.04154329001903534, -1.517301839726315e-09, [6.960296872193794e-08, -5.433977321445127e-07, 4.4106868699600454e-06, -4.4101678213337436e-05, 0.0004367060319054872, -0.0042810398153960705]),
    (0.0395066924393177, 1.6620682607992876e-09, [2.6385633233871886e-08, -3.376408130861819e-07, 3.464404471742455e-06, -3.627858677646145e-05, 0.00037665010313503444, -0.0038753394037485123]),
    (0.03765885904431343, -3.253753377840951e-10, [2.4442309509709048e-08, -2.505676093278453e-07, 2.7479472919367254e-06, -3.010002001246903e-05, 0.0003270441375207156, -0.0035242638550698757]),
    (0.0359748899936676, -3.725332542448001e-10, [1.2638828650324285e-08, -2.027305612273267e-07, 2.2020590222382452e-06, -2.517335451557301e-05, 0.0002857246727216989, -0.003218494588509202]),
    (0.034434057772159576, 8.184607436234614e-10, [1.119910031377458e-08, -1.6340396769010113e-07, 1.7800113027988118e-06, -2.120927456417121e-05, 0.00025104128872044384, -0.0029506066348403692]),
    (0.03301897272467613, -1.6474616115758067e-09, [3.0271647410984315e-09, -8.56586552799854e-08, 1.4515244401991367e-06, -1.7995751477428712e-05, 0.00022172067838255316, -0.0027146274223923683]),
    (0.03171492740511894, -1.8353034647589084e-09, [1.3653114194767113e-08, -1.1274393330040766e-07, 1.1914271453861147e-06, -1.535837145638652e-05, 0.00019677043019328266, -0.0025057108141481876]),
    (0.03050941415131092, 3.439462326060294e-10, [3.634641254635085e-09, -5.8183147189083684e-08, 9.865153742794064e-07, -1.3190872778068297e-05, 0.000175409484654665, -0.0023198919370770454]),
    (0.029391732066869736, -4.37339969794337e-10, [1.0872859057542428e-08, -1.0348068002485888e-07, 8.210860755752947e-07, -1.1383603123249486e-05, 0.00015701785741839558, -0.002153903478756547]),
    (0.028352661058306694, -5.309637729489225e-10, [-1.7710385380453886e-09, -1.4769272027592706e-08, 6.892175861139549e-07, -9.884607607091311e-06, 0.00014109912444837391, -0.0020050329621881247]),
    (0.02738422527909279, -8.765622255824113e-11, [9.59627222130166e-09, -6.967443511030069e-08, 5.801281872663822e-07, -8.613170393800829e-06, 0.0001272529480047524, -0.00187101517803967]),
    (0.026479488238692284, 7.605375773600542e-10, [6.833753563029177e-09, -5.6729714259518005e-08, 4.91950117975648e-07, -7.543463198089739e-06, 0.00011515391088323668, -0.0017499454552307725]),
];

/// [`GELU32_TABLE`] by column, 32 rows each (row 31 unused): one AVX-512 permute fetches a
/// coefficient for 16 lanes.
pub(crate) struct Gelu32Cols {
    pub(crate) hi: [f32; 32],
    pub(crate) lo: [f32; 32],
    pub(crate) q: [[f32; 32]; 6],
}

pub(crate) const GELU32_COLS: Gelu32Cols = {
    let mut c = Gelu32Cols {
        hi: [0.0; 32],
        lo: [0.0; 32],
        q: [[0.0; 32]; 6],
    };
    let mut k = 0;
    while k < GELU32_TABLE.len() {
        let (hi, lo, q) = GELU32_TABLE[k];
        c.hi[k] = hi;
        c.lo[k] = lo;
        let mut j = 0;
        while j < 6 {
            c.q[j][k] = q[j];
            j += 1;
        }
        k += 1;
    }
    c
};

/// gelu with erf, `x/2 (1 + erf(x/sqrt 2))`, f32, float32 arithmetic. With `a = |x|` and
/// `E(a) = (a/2) erfc(a/sqrt 2) = a R(a) e^(-a^2/2)`, gelu is `-E(a)` for negative `x` and
/// `x - E(x)` otherwise:
/// - `R(a)` from [`GELU32_TABLE`]'s row `k = round(2a)` (`a` clamped to 15, where `E` is
///   below half the smallest subnormal; `t = a - k/2` exact), its constant term an `hi + lo`
///   pair; `a R(a)` as `p + pl` with `a hi` an exact product;
/// - `e^(-a^2/2)` with `a^2` as an exact pair `h + l` ([`exp_neg_half32`]), so the big
///   arguments keep their accuracy (the rounding of `a^2` is what a plain float32 evaluation
///   loses: 4.5 ulp near x = -9 for the attempt of 2 Dec);
/// - the product rounded once ([`times_exp32`], then [`scale2_32`]).
///
/// `±inf` give NaN, as PyTorch's vectorized float32 erf makes `gelu(+inf)` (and `-inf/2 * 0`).
/// The AVX-512 loop `vmath_avx512::gelu_erf_loop` performs the same operations.
#[inline(always)]
pub fn gelu_erf_f32<const F: bool>(x: f32) -> f32 {
    let a = clamp32(x.abs(), 0.0, 15.0);
    // k = round(2a) (ties to even), in the low bits of f; 2a is exact.
    let f = 2.0 * a + ROUND32;
    let kf = f - ROUND32;
    let i = (f.to_bits() & 31) as usize;
    let t = a - 0.5 * kf;
    let c = &GELU32_COLS;
    let q = [
        c.q[0][i], c.q[1][i], c.q[2][i], c.q[3][i], c.q[4][i], c.q[5][i],
    ];
    let gl = fma32::<F>(t, horner32::<F>(t, &q), c.lo[i]);
    let (p, pe) = two_prod32::<F>(a, c.hi[i]);
    let pl = fma32::<F>(a, gl, pe);
    let (h, l) = two_prod32::<F>(a, a);
    let (n, r, s) = exp_neg_half32::<F>(h, l);
    let e = scale2_32(times_exp32::<F>(p, pl, r, s), n);
    let y = if x >= 0.0 { x - e } else { -e };
    if x.is_infinite() { f32::NAN } else { y }
}

// ------------------------------------------------------------------------------ f32 via f64

/// `ln(1+x)`, f32 evaluated in f64 (correctly rounded but for double rounding).
#[inline(always)]
pub fn log1p_f32<const F: bool>(x: f32) -> f32 {
    log1p_f64::<F>(x as f64) as f32
}

#[inline(always)]
pub fn log2_f32<const F: bool>(x: f32) -> f32 {
    (log_f64::<F>(x as f64) * std::f64::consts::LOG2_E) as f32
}

#[inline(always)]
pub fn log10_f32<const F: bool>(x: f32) -> f32 {
    (log_f64::<F>(x as f64) * std::f64::consts::LOG10_E) as f32
}

/// `log2 e` as float64 `hi + lo`.
pub(crate) const LOG2_E_F64: (f64, f64) = (std::f64::consts::LOG2_E, 2.035_527_374_093_103_3e-17);
/// `log10 e` as float64 `hi + lo`.
pub(crate) const LOG10_E_F64: (f64, f64) = (std::f64::consts::LOG10_E, 1.098_319_650_216_765e-17);
/// `log10 2` as `hi + lo` with 32 significant bits in `hi`, so that `k hi` is exact for every
/// exponent `k`.
pub(crate) const LOG10_2_F64: (f64, f64) = (0.301_029_995_665_885_5, -1.904_312_846_716_427_4e-12);

/// `log2 x`, f64 ([`log_base_f64`] with `c = 1`).
#[inline(always)]
pub fn log2_f64<const F: bool>(x: f64) -> f64 {
    log_base_f64::<F>(x, LOG2_E_F64, (1.0, 0.0))
}

/// `log10 x`, f64 ([`log_base_f64`] with `c = log10 2`).
#[inline(always)]
pub fn log10_f64<const F: bool>(x: f64) -> f64 {
    log_base_f64::<F>(x, LOG10_E_F64, LOG10_2_F64)
}

/// `k c + log(1 + f) l` for `x = 2^k (1 + f)` ([`log_parts_f64`]), the constants `l` (`log_b e`)
/// and `c` (`log_b 2`) given as `hi + lo` pairs: `f l_hi` an exact pair ([`two_prod64`]),
/// `k c_hi` exact, their sum by Fast2Sum (`|k c_hi| >= 1/4 > |f l_hi|` unless `k = 0`), and the
/// small terms (`log(1+f) - f` times `l`, `f l_lo`, `k c_lo`) added to its error, so the result
/// rounds ~once.
#[inline(always)]
fn log_base_f64<const F: bool>(x: f64, l: (f64, f64), c: (f64, f64)) -> f64 {
    let (dk, f) = log_parts_f64::<F>(x);
    let core = log1p_core_f64::<F>(f, 0.0);
    let (ph, pl) = two_prod64::<F>(f, l.0);
    let rest = fma64::<F>(core, l.0, fma64::<F>(f, l.1, pl)) + dk * c.1;
    let kh = dk * c.0;
    let s = kh + ph;
    let e = (kh - s) + ph;
    special_log(x, s + (e + rest))
}

/// `y`, a logarithm of `x` computed for positive finite `x`, with the special values: `-inf`
/// at zero, NaN below zero or at NaN, `+inf` at `+inf`.
#[inline(always)]
fn special_log(x: f64, y: f64) -> f64 {
    if x == 0.0 {
        f64::NEG_INFINITY
    } else if !(x >= 0.0) {
        f64::NAN
    } else if x == f64::INFINITY {
        x
    } else {
        y
    }
}

/// `softplus(x) = log1p(e^(beta x))/beta`, `x` where `beta x > threshold`, f32 evaluated in f64.
#[inline(always)]
pub fn softplus_f32<const F: bool>(x: f32, beta: f64, threshold: f64) -> f32 {
    let z = x as f64 * beta;
    let y = log1p_f64::<F>(exp_f64::<F>(z)) / beta;
    if z > threshold { x } else { y as f32 }
}

#[inline(always)]
pub fn softplus_f64<const F: bool>(x: f64, beta: f64, threshold: f64) -> f64 {
    let z = x * beta;
    // log1p(e^z) = max(z, 0) + log1p(e^-|z|): no overflow for large z below the threshold.
    let y = (z.max(0.0) + log1p_f64::<F>(exp_f64::<F>(-z.abs()))) / beta;
    if z > threshold { x } else { y }
}

// ------------------------------------------------------------------------------ trig, pow

#[path = "vmath_trig.rs"]
mod trig;
pub use trig::*;

#[cfg(target_arch = "x86_64")]
#[path = "vmath_avx512.rs"]
pub(crate) mod avx512;

#[cfg(target_arch = "x86_64")]
#[path = "vmath_avx2.rs"]
pub(crate) mod avx2;

// ------------------------------------------------------------------------------ kernels

/// The kernels as [`Unary`] values, one per function.
pub mod k {
    use super::*;

    macro_rules! unary_kernels {
        ($($name:ident => $f32:ident, $f64:ident $(, avx512 $loop:ident)? $(, minus $mloop:ident)?;)*) => {$(
            #[derive(Clone, Copy, Debug)]
            pub struct $name;
            impl Unary<f32> for $name {
                #[inline(always)]
                fn eval<const F: bool>(self, x: f32) -> f32 { $f32::<F>(x) }
                $(
                    #[cfg(target_arch = "x86_64")]
                    #[inline(always)]
                    unsafe fn map_avx512(self, x: *const f32, out: *mut f32, n: usize) -> bool {
                        // SAFETY: forwarded (the trait method's contract).
                        unsafe { avx512::$loop(x, out, n) };
                        true
                    }
                    #[cfg(target_arch = "x86_64")]
                    #[inline(always)]
                    fn then_avx512(self) -> Option<ThenKernel> {
                        Some(ThenKernel::$name)
                    }
                )?
                $(
                    #[cfg(target_arch = "x86_64")]
                    #[inline(always)]
                    unsafe fn map_minus_avx512(
                        self,
                        x: *const f32,
                        m: f32,
                        out: *mut f32,
                        n: usize,
                    ) -> bool {
                        // SAFETY: forwarded (the trait method's contract).
                        unsafe { avx512::$mloop(x, out, n, m) };
                        true
                    }
                )?
            }
            impl Unary<f64> for $name {
                #[inline(always)]
                fn eval<const F: bool>(self, x: f64) -> f64 { $f64::<F>(x) }
            }
        )*};
    }

    unary_kernels! {
        Exp => exp_f32, exp_f64, avx512 exp_loop, minus exp_minus_loop;
        Expm1 => expm1_f32, expm1_f64;
        Log => log_f32, log_f64;
        Log1p => log1p_f32, log1p_f64;
        Log2 => log2_f32, log2_f64;
        Log10 => log10_f32, log10_f64;
        Tanh => tanh_f32, tanh_f64, avx512 tanh_loop;
        Sigmoid => sigmoid_f32, sigmoid_f64, avx512 sigmoid_loop;
        Silu => silu_f32, silu_f64;
        GeluTanh => gelu_tanh_f32, gelu_tanh_f64;
        Asin => asin_f32, asin_f64;
        Acos => acos_f32, acos_f64;
        Atan => atan_f32, atan_f64;
        Sinh => sinh_f32, sinh_f64;
        Cosh => cosh_f32, cosh_f64;
    }

    /// sin, cos, tan: vector reduction up to [`TRIG_MAX`], glibc's (through `std`) beyond.
    macro_rules! trig_kernels {
        ($($name:ident => $f32:ident, $f64:ident, $std:ident;)*) => {$(
            #[derive(Clone, Copy, Debug)]
            pub struct $name;
            impl Unary<f32> for $name {
                #[inline(always)]
                fn eval<const F: bool>(self, x: f32) -> f32 { $f32::<F>(x) }
                const HAS_SLOW: bool = true;
                #[inline(always)]
                fn needs_slow(self, x: f32) -> bool {
                    (x.abs() > TRIG_MAX as f32) & x.is_finite()
                }
                fn slow(self, x: f32) -> f32 { (x as f64).$std() as f32 }
            }
            impl Unary<f64> for $name {
                #[inline(always)]
                fn eval<const F: bool>(self, x: f64) -> f64 { $f64::<F>(x) }
                const HAS_SLOW: bool = true;
                #[inline(always)]
                fn needs_slow(self, x: f64) -> bool {
                    (x.abs() > TRIG_MAX) & x.is_finite()
                }
                fn slow(self, x: f64) -> f64 { x.$std() }
            }
        )*};
    }

    trig_kernels! {
        Sin => sin_f32, sin_f64, sin;
        Cos => cos_f32, cos_f64, cos;
        Tan => tan_f32, tan_f64, tan;
    }

    /// `atan2(y, x)` (y the first operand, as `torch.atan2(input, other)`).
    #[derive(Clone, Copy, Debug)]
    pub struct Atan2;
    impl Binary<f32> for Atan2 {
        #[inline(always)]
        fn eval<const F: bool>(self, y: f32, x: f32) -> f32 {
            atan2_f32::<F>(y, x)
        }
    }
    impl Binary<f64> for Atan2 {
        #[inline(always)]
        fn eval<const F: bool>(self, y: f64, x: f64) -> f64 {
            atan2_f64::<F>(y, x)
        }
    }

    /// `x ** y`: float32 by [`pow_f32`] (f64 `e^(y ln|x|)`, rounded once); float64 by
    /// [`pow_f64`] (the log as a double-double from a 128-row table, `e^` of the pair, within
    /// 1 ulp; see docs/kernels.md) in the FMA flavour, and by glibc's `pow` in the plain one:
    /// on SSE2 (2 lanes, Dekker's products, the table loads one by one) the kernel took 2.7x
    /// glibc's time (65,536 elements, one thread, 6 Dec 2026), on AVX2 about the same time,
    /// on AVX-512 0.42x.
    #[derive(Clone, Copy, Debug)]
    pub struct Pow;
    impl Binary<f64> for Pow {
        #[inline(always)]
        fn eval<const F: bool>(self, x: f64, y: f64) -> f64 {
            if F { pow_f64::<true>(x, y) } else { x.powf(y) }
        }
    }
    impl Binary<f32> for Pow {
        #[inline(always)]
        fn eval<const F: bool>(self, x: f32, y: f32) -> f32 {
            pow_f32::<F>(x, y)
        }
        #[cfg(target_arch = "x86_64")]
        #[inline(always)]
        unsafe fn map_right_avx512(self, x: *const f32, y: f32, out: *mut f32, n: usize) -> bool {
            // SAFETY: forwarded (the trait method's contract).
            unsafe { avx512::pow_right_loop(x, out, n, y) };
            true
        }
    }

    /// f32 only (the f64 kernels stay on libm's erf: see docs/kernels.md).
    #[derive(Clone, Copy, Debug)]
    pub struct Erf;
    impl Unary<f32> for Erf {
        #[inline(always)]
        fn eval<const F: bool>(self, x: f32) -> f32 {
            erf_f32::<F>(x)
        }
    }

    #[derive(Clone, Copy, Debug)]
    pub struct GeluErf;
    impl Unary<f32> for GeluErf {
        #[inline(always)]
        fn eval<const F: bool>(self, x: f32) -> f32 {
            gelu_erf_f32::<F>(x)
        }
        #[cfg(target_arch = "x86_64")]
        #[inline(always)]
        unsafe fn map_avx512(self, x: *const f32, out: *mut f32, n: usize) -> bool {
            // SAFETY: forwarded (the trait method's contract).
            unsafe { avx512::gelu_erf_loop(x, out, n) };
            true
        }
        #[cfg(target_arch = "x86_64")]
        #[inline(always)]
        unsafe fn map_avx2(self, x: *const f32, out: *mut f32, n: usize) -> bool {
            // SAFETY: forwarded (the trait method's contract).
            unsafe { avx2::gelu_erf_loop(x, out, n) };
            true
        }
    }

    #[derive(Clone, Copy, Debug)]
    pub struct Softplus {
        pub beta: f64,
        pub threshold: f64,
    }
    impl Unary<f32> for Softplus {
        #[inline(always)]
        fn eval<const F: bool>(self, x: f32) -> f32 {
            softplus_f32::<F>(x, self.beta, self.threshold)
        }
    }
    impl Unary<f64> for Softplus {
        #[inline(always)]
        fn eval<const F: bool>(self, x: f64) -> f64 {
            softplus_f64::<F>(x, self.beta, self.threshold)
        }
    }

    /// `|x|` (clears the sign bit: `abs(-0.0)` is `0.0`, a NaN stays a NaN).
    #[derive(Clone, Copy, Debug)]
    pub struct Abs;
    impl Unary<f32> for Abs {
        #[inline(always)]
        fn eval<const F: bool>(self, x: f32) -> f32 {
            x.abs()
        }
    }
    impl Unary<f64> for Abs {
        #[inline(always)]
        fn eval<const F: bool>(self, x: f64) -> f64 {
            x.abs()
        }
    }

    /// `-x` (flips the sign bit).
    #[derive(Clone, Copy, Debug)]
    pub struct Neg;
    impl Unary<f32> for Neg {
        #[inline(always)]
        fn eval<const F: bool>(self, x: f32) -> f32 {
            -x
        }
    }
    impl Unary<f64> for Neg {
        #[inline(always)]
        fn eval<const F: bool>(self, x: f64) -> f64 {
            -x
        }
    }

    /// `sqrt` (one hardware instruction per vector; correctly rounded).
    #[derive(Clone, Copy, Debug)]
    pub struct Sqrt;
    impl Unary<f32> for Sqrt {
        #[inline(always)]
        fn eval<const F: bool>(self, x: f32) -> f32 {
            x.sqrt()
        }
    }
    impl Unary<f64> for Sqrt {
        #[inline(always)]
        fn eval<const F: bool>(self, x: f64) -> f64 {
            x.sqrt()
        }
    }

    /// `1/sqrt(x)` (PyTorch's CPU rsqrt is also the division, not the approximate instruction).
    #[derive(Clone, Copy, Debug)]
    pub struct Rsqrt;
    impl Unary<f32> for Rsqrt {
        #[inline(always)]
        fn eval<const F: bool>(self, x: f32) -> f32 {
            1.0 / x.sqrt()
        }
    }
    impl Unary<f64> for Rsqrt {
        #[inline(always)]
        fn eval<const F: bool>(self, x: f64) -> f64 {
            1.0 / x.sqrt()
        }
    }
}

/// The four float arithmetic operators as kernels: [`arith::Zip`] for two slices ([`Right`] /
/// [`Left`] of it for a slice and a scalar on either side).
pub mod arith {
    use super::Binary;

    /// One arithmetic operator on `T`.
    pub trait Op<T>: Copy + Send + Sync {
        fn apply(a: T, b: T) -> T;
    }

    macro_rules! ops {
        ($($name:ident => $op:tt;)*) => {$(
            #[derive(Clone, Copy, Debug)]
            pub struct $name;
            impl Op<f32> for $name {
                #[inline(always)]
                fn apply(a: f32, b: f32) -> f32 { a $op b }
            }
            impl Op<f64> for $name {
                #[inline(always)]
                fn apply(a: f64, b: f64) -> f64 { a $op b }
            }
        )*};
    }

    ops! {
        Add => +;
        Sub => -;
        Mul => *;
        Div => /;
    }

    /// `a[i] op b[i]`.
    #[derive(Clone, Copy, Debug)]
    pub struct Zip<O>(pub O);
    impl<T: Copy, O: Op<T>> Binary<T> for Zip<O> {
        #[inline(always)]
        fn eval<const F: bool>(self, a: T, b: T) -> T {
            O::apply(a, b)
        }
    }
}

#[cfg(test)]
#[path = "vmath_tests.rs"]
mod tests;
