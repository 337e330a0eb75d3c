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
    TanhFast,
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

/// `2^n` as two factors `(2^(n >> 1), 2^(n - (n >> 1)))` for `n` in `[-2044, 2046]`: `m`
/// times both rounds once even where the result is subnormal. `n >> 1` by a logical shift of
/// `n + 2048` (AVX2 has no 64-bit arithmetic shift), and wrapping arithmetic: the meaningless
/// `n` of a NaN argument, whose result the callers' selects discard, must not trap in debug
/// builds.
#[inline(always)]
pub(crate) fn pow2i_split_f64(n: i64) -> (f64, f64) {
    let n1 = ((n.wrapping_add(2048) as u64) >> 1) as i64 - 1024;
    (pow2i_f64(n1), pow2i_f64(n.wrapping_sub(n1)))
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
    let (s1, s2) = pow2i_split_f64(n);
    y * s1 * s2
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

/// `tanh_fast x`, f32 (the kernel of `tensor.tanh_fast`, which `torch.tanh` lowers to when a
/// function is compiled with `fastmath`): one rational form `a P(a^2) / Q(a^2)` on `a = |x|`
/// clamped to [`TANH_FAST_F32_CLAMP`], at most 1, with the sign of `x` — no exponential, no
/// second form, about half the operations of [`tanh_f32`]. The price is accuracy: within
/// 6.5 ulp (5.36 in the FMA flavour, 6.17 without; the exhaustive check
/// `f32_tanh_fast_on_every_float32`), where [`tanh_f32`] is within 0.88 — XLA's rational
/// `tanh` is within 4.6. `P` and `Q` (highest coefficient first; both
/// 1 at 0, so a tiny `x` gives `x` exactly) are a relative-error fit (Lawson's iteration over
/// `[0, 9.1]`, 3.9e-8 before rounding the coefficients; `docs/kernels.md`).
#[inline(always)]
pub fn tanh_fast_f32<const F: bool>(x: f32) -> f32 {
    let a = clamp32(x.abs(), 0.0, TANH_FAST_F32_CLAMP);
    let z = a * a;
    let p = horner32::<F>(z, &TANH_FAST_F32_P);
    let q = horner32::<F>(z, &TANH_FAST_F32_Q);
    let r = a * p / q;
    // `min(r, 1)` passing a NaN: the fit crosses 1 just below the clamp, so every `|x|`
    // from there on (infinities included) gives exactly 1.
    (if r > 1.0 { 1.0 } else { r }).copysign(x)
}

/// `|x|` is clamped here in [`tanh_fast_f32`] (float32 `tanh` is 1 from 9.01 on; the rational
/// form is 1 at the clamp, and at most 1 ulp below it from 9.01 up to there).
pub const TANH_FAST_F32_CLAMP: f32 = 9.1;
/// The numerator and the denominator of [`tanh_fast_f32`], highest coefficient first.
pub const TANH_FAST_F32_P: [f32; 5] = [
    1.327_785_7e-8,
    2.055_740_3e-5,
    3.492_638_5e-3,
    1.337_861_9e-1,
    1.0,
];
pub const TANH_FAST_F32_Q: [f32; 5] = [
    7.746_190_2e-7,
    3.280_669_9e-4,
    2.586_598_9e-2,
    4.671_194e-1,
    1.0,
];

/// `tanh_fast x`, f64: [`tanh_f64`] (fastmath changes float32 functions only).
#[inline(always)]
pub fn tanh_fast_f64<const F: bool>(x: f64) -> f64 {
    tanh_f64::<F>(x)
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

/// gelu(erf)'s local polynomials away from 0 (tools/fit_gelu_table_f32.py far 6): row `k` covers
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

/// A table of local polynomials `(c0_hi, c0_lo, Q)`, `Q` of `C` coefficients, by column, in
/// `R >= N` rows (the rows past the table's `N` are zero): one vector lookup (an AVX-512
/// permute, a gather) fetches one coefficient for every lane.
pub(crate) struct TableCols<T, const R: usize, const C: usize> {
    pub(crate) hi: [T; R],
    pub(crate) lo: [T; R],
    pub(crate) q: [[T; R]; C],
}

/// [`TableCols`] of `table`'s rows `first..` (at most `R` of them).
const fn table_cols<T: Copy, const N: usize, const R: usize, const C: usize>(
    table: &[(T, T, [T; C]); N],
    first: usize,
    zero: T,
) -> TableCols<T, R, C> {
    assert!(first <= N);
    let mut c = TableCols {
        hi: [zero; R],
        lo: [zero; R],
        q: [[zero; R]; C],
    };
    let mut k = 0;
    while k < R && first + k < N {
        let (hi, lo, q) = table[first + k];
        c.hi[k] = hi;
        c.lo[k] = lo;
        let mut j = 0;
        while j < C {
            c.q[j][k] = q[j];
            j += 1;
        }
        k += 1;
    }
    c
}

/// [`GELU32_TABLE`] by column, 32 rows each (row 31 unused): one AVX-512 permute fetches a
/// coefficient for 16 lanes.
pub(crate) const GELU32_COLS: TableCols<f32, 32, 6> = table_cols(&GELU32_TABLE, 0, 0.0);

/// gelu(erf)'s local polynomials near 0 (tools/fit_gelu_table_f32.py near 7): row `k` covers
/// `|a - 3k/16| <= 3/32` (row 0: `0 <= a <= 3/32`) as `c0_hi + (c0_lo + t Q(t))`,
/// `t = a - 3k/16`, `Q` highest first, approximating `G(a) = erfc(a/sqrt 2)/2` itself, within
/// 4.1e-9 relative (the rounded fits; `|t Q(t)| <= 0.76 G`). 32 rows: one AVX-512 `vpermt2ps`
/// fetches a coefficient for 16 lanes.
#[rustfmt::skip]
const GELU32_NEAR_TABLE: [(f32, f32, [f32; 7]); 32] = [
    (0.5, 0.0, [-0.9801661968231201, 0.3359999358654022, -0.05554052069783211, 0.0030960156582295895, 0.06638108193874359, 1.8537655250838725e-06, -0.3989422917366028]),
    (0.42563432455062866, -1.2706525609473829e-08, [0.014991529285907745, 0.0014970815973356366, -0.009351497516036034, -0.00907966960221529, 0.06303621083498001, 0.03674914687871933, -0.39199090003967285]),
    (0.3538302481174469, -1.479017086580825e-08, [-0.1070118248462677, 0.0026604607701301575, -0.004916874226182699, -0.016614001244306564, 0.053251124918460846, 0.06972283124923706, -0.37185508012771606]),
    (0.2868877053260803, -3.5097151851459785e-09, [-0.04290781170129776, 0.003132457844913006, -0.0026795961894094944, -0.021420065313577652, 0.03879789263010025, 0.09578463435173035, -0.34056758880615234]),
    (0.22662734985351562, 2.523352637950893e-09, [-0.11434449255466461, 0.0029922996181994677, 0.002082024933770299, -0.02293761633336544, 0.02194799855351448, 0.11292653530836105, -0.30113741755485535]),
    (0.17425070703029633, 4.8502459826238464e-09, [0.01243115309625864, 0.002378104254603386, 0.0029922013636678457, -0.02130047231912613, 0.005189490970224142, 0.12050339579582214, -0.25707390904426575]),
    (0.13029451668262482, 4.5418405147934493e-10, [-0.0014705833746120334, 0.0012817090610042214, 0.00529373437166214, -0.017225002869963646, -0.00938001461327076, 0.11918061226606369, -0.21187664568424225]),
    (0.09467574208974838, 9.31894228450858e-10, [-0.011082932353019714, 0.00014934215869288892, 0.006313471123576164, -0.011775987222790718, -0.02030673250555992, 0.11063927412033081, -0.16859318315982819]),
    (0.06680720299482346, -1.725965370624749e-09, [0.032754085958004, -0.0006676599732600152, 0.005303107667714357, -0.006070979870855808, -0.026979925110936165, 0.09713819622993469, -0.1295175999403]),
    (0.04575362429022789, 6.715132339074614e-10, [-0.023644357919692993, -0.0011531570926308632, 0.0051806909032166, -0.0010296831605955958, -0.02958347089588642, 0.08105189353227615, -0.09606149792671204]),
    (0.030396360903978348, 8.612830448839759e-10, [0.019319970160722733, -0.0013119030045345426, 0.0029568010941147804, 0.0027698404155671597, -0.028838369995355606, 0.06448713690042496, -0.06878627836704254]),
    (0.01958007924258709, -4.6420964294746625e-10, [-0.013627615757286549, -0.0013259591069072485, 0.001990007236599922, 0.005124822724610567, -0.025790534913539886, 0.04903994873166084, -0.0475538894534111]),
    (0.012224473059177399, -4.0413269952743747e-10, [0.0027018198743462563, -0.000981962657533586, 0.0004201832343824208, 0.0061370390467345715, -0.021490173414349556, 0.03570710867643356, -0.031739652156829834]),
    (0.007394607178866863, -6.79861653085645e-11, [0.005719059146940708, -0.0006356905796565115, -0.0005446432041935623, 0.006110021844506264, -0.016843684017658234, 0.024926695972681046, -0.020452674478292465]),
    (0.004332448355853558, 7.1590008227095936e-12, [0.000649810885079205, -0.0003175967722199857, -0.0009756088256835938, 0.005414862185716629, -0.012492198497056961, 0.016700487583875656, -0.01272418163716793]),
    (0.0024579011369496584, 3.824703054267076e-11, [0.00011846837151097134, -5.512798088602722e-05, -0.001152551849372685, 0.004397740587592125, -0.008801938965916634, 0.010747414082288742, -0.007642605807632208]),
    (0.0013498980551958084, -2.3565713616613415e-11, [0.00010510931315366179, 0.00011030009045498446, -0.0011083059944212437, 0.0033238870091736317, -0.00590912951156497, 0.006647772621363401, -0.004431848414242268]),
    (0.0007175423088483512, -1.900390088349635e-11, [-0.0008707885863259435, 0.00018427715986035764, -0.000920710212085396, 0.0023594829253852367, -0.003788094501942396, 0.003954397980123758, -0.0024811907205730677]),
    (0.0003690784506034106, 3.671656728654327e-12, [-0.0003617882903199643, 0.00019289227202534676, -0.0007137041538953781, 0.0015824389411136508, -0.002322542015463114, 0.002263138070702553, -0.0013411188265308738]),
    (0.00018366995209362358, 2.1437400465895706e-12, [-1.770417657098733e-05, 0.00016913465515244752, -0.0005128868506290019, 0.0010067981202155352, -0.0013637086376547813, 0.0012466113548725843, -0.000699852011166513]),
    (8.84172841324471e-05, 1.0683567745750633e-12, [-0.00011757136962842196, 0.0001325497287325561, -0.0003404637973289937, 0.0006094659329392016, -0.0007676379173062742, 0.0006611169083043933, -0.0003525956708472222]),
    (4.1167466406477615e-05, -4.3487826187349476e-13, [-5.1313047151779756e-05, 9.419453999726102e-05, -0.000214469589991495, 0.00035183067666366696, -0.0004145868879277259, 0.00033765265834517777, -0.00017150610801763833]),
    (1.8536737115937285e-05, 7.302646985382633e-13, [-2.040025356109254e-05, 6.22283696429804e-05, -0.00012783659622073174, 0.0001940144138643518, -0.00021498413116205484, 0.00016611468163318932, -8.054044883465394e-05]),
    (8.070944204519037e-06, -8.165096067802233e-14, [-1.993981459236238e-05, 3.828239641734399e-05, -7.211967022158206e-05, 0.00010234299406874925, -0.00010709908383432776, 7.873710273997858e-05, -3.651575752883218e-05]),
    (3.3976730264839716e-06, 9.824609116700078e-14, [-4.216237357468344e-06, 2.228355879196897e-05, -3.892894892487675e-05, 5.169717769604176e-05, -5.128068369231187e-05, 3.5963417758466676e-05, -1.598374183231499e-05]),
    (1.3828134797222447e-06, 2.668784653990161e-14, [-4.7088583414733876e-06, 1.225001960847294e-05, -1.9942815924878232e-05, 2.5030331016751006e-05, -2.3610700736753643e-05, 1.5831412383704446e-05, -6.75473620503908e-06]),
    (5.440422796709754e-07, -4.09605905644277e-15, [-2.7941873668169137e-06, 6.405125077435514e-06, -9.773838428372983e-06, 1.1624522812780924e-05, -1.045674980559852e-05, 6.717610176565358e-06, -2.755942659860011e-06]),
    (2.0689702751042205e-07, 5.1912277644963756e-15, [-1.3822119626638596e-06, 3.1847368973103585e-06, -4.584476300806273e-06, 5.181741926207906e-06, -4.4560952119354624e-06, 2.7478868105390575e-06, -1.0855849268409656e-06]),
    (7.604960217122425e-08, 2.9936628280084797e-15, [-8.593202096562891e-07, 1.50837956880423e-06, -2.0553723061311757e-06, 2.2182243810675573e-06, -1.82770691026235e-06, 1.0837236459337873e-06, -4.128471005060419e-07]),
    (2.7016675119284628e-08, 6.053843735699991e-17, [-3.949501206079731e-07, 6.831680821051123e-07, -8.844266403684742e-07, 9.123423296841793e-07, -7.216877975224634e-07, 4.121125414258131e-07, -1.5158161659201141e-07]),
    (9.275399115438177e-09, -3.808773644579607e-16, [-2.0082082130556955e-07, 2.9544207791332155e-07, -3.644732942120754e-07, 3.6067774544790154e-07, -2.743994400589145e-07, 1.5112217965906893e-07, -5.373232525585081e-08]),
    (3.077334165269008e-09, 2.5528669749015704e-17, [-7.881837404966063e-08, 1.2230273682689585e-07, -1.443969068759543e-07, 1.3710008772704896e-07, -1.0048025700371e-07, 5.3442850145302145e-08, -1.8388936595670202e-08]),
];

/// [`GELU32_NEAR_TABLE`] by column.
pub(crate) const GELU32_NEAR_COLS: TableCols<f32, 32, 7> = table_cols(&GELU32_NEAR_TABLE, 0, 0.0);

/// Rows of [`GELU32_NEAR_TABLE`] per unit of `|x|` (`16/3`, rounded): the row is
/// `k = round(|x| * GELU32_NEAR_SCALE)`, from a rounded product, so a row serves up to 2e-7
/// beyond its edge (its fit covers that).
pub(crate) const GELU32_NEAR_SCALE: f32 = 16.0 / 3.0;
/// A row's width, `3/16` (exact): `t = |x| - k * GELU32_NEAR_WIDTH` is exact.
pub(crate) const GELU32_NEAR_WIDTH: f32 = 0.1875;
/// Below this `|x|` [`gelu_erf_f32`] takes [`GELU32_NEAR_TABLE`] (`k <= 31`: the largest
/// float32 below it times [`GELU32_NEAR_SCALE`] is 31.4999974).
pub(crate) const GELU32_NEAR_END: f32 = 5.90625;

/// gelu with erf, `x/2 (1 + erf(x/sqrt 2))`, f32, float32 arithmetic. With `a = |x|` and
/// `E(a) = (a/2) erfc(a/sqrt 2)`, gelu is `-E(a)` for negative `x` and `x - E(x)` otherwise
/// (by the sign bit: `gelu(-0) = -0`). Below `|x| = 5.90625` [`gelu_erf_near32`] (a table,
/// no exponential), elsewhere [`gelu_erf_far32`]. The AVX-512 and AVX2 loops
/// (`vmath_avx512::gelu_erf_loop`, `vmath_avx2::gelu_erf_loop`) perform the same operations
/// (a vector with a lane at or beyond 5.90625, or a NaN, computes both and selects per lane).
#[inline(always)]
pub fn gelu_erf_f32<const F: bool>(x: f32) -> f32 {
    if x.abs() < GELU32_NEAR_END {
        gelu_erf_near32::<F>(x)
    } else {
        gelu_erf_far32::<F>(x)
    }
}

/// [`gelu_erf_f32`] for `|x| < 5.90625`:
/// - `G(a)` from [`GELU32_NEAR_TABLE`]'s row `k = round(a * 16/3)` (`t = a - 3k/16` exact),
///   its constant term an `hi + lo` pair; `E = a G(a)` as `p + pl` with `a hi` an exact
///   product;
/// - negative `x`: `-(p + pl)`, one rounding; otherwise `x - (p + pl)` with `x - p` by
///   Fast2Sum (`p <= x/2`), so the result is rounded once more only in its low part.
#[inline(always)]
fn gelu_erf_near32<const F: bool>(x: f32) -> f32 {
    let a = x.abs();
    // k = round(a * 16/3) (ties to even), in the low bits of f (the vector loops' FMA).
    let f = fma32::<F>(a, GELU32_NEAR_SCALE, ROUND32);
    let kf = f - ROUND32;
    let t = a - GELU32_NEAR_WIDTH * kf;
    let (hi, lo, q) = gelu32_row(&GELU32_NEAR_COLS, (f.to_bits() & 31) as usize);
    let gl = fma32::<F>(t, horner32::<F>(t, &q), lo);
    let (p, pe) = two_prod32::<F>(a, hi);
    let pl = fma32::<F>(a, gl, pe);
    if x.is_sign_negative() {
        -(p + pl)
    } else {
        let s = x - p;
        let err = (x - s) - p;
        s + (err - pl)
    }
}

/// Row `i` of a gelu table: `(c0_hi, c0_lo, Q)`.
#[inline(always)]
fn gelu32_row<const R: usize, const C: usize>(
    c: &TableCols<f32, R, C>,
    i: usize,
) -> (f32, f32, [f32; C]) {
    (c.hi[i], c.lo[i], std::array::from_fn(|j| c.q[j][i]))
}

/// [`gelu_erf_f32`] for `|x| >= 5.90625` (correct for every `x`): with
/// `E(a) = a R(a) e^(-a^2/2)`:
/// - `R(a)` from [`GELU32_TABLE`]'s row `k = round(2a)` (`a` clamped to 15, where `E` is
///   below half the smallest subnormal; `t = a - k/2` exact), its constant term an `hi + lo`
///   pair; `a R(a)` as `p + pl` with `a hi` an exact product;
/// - `e^(-a^2/2)` with `a^2` as an exact pair `h + l` ([`exp_neg_half32`]), so the big
///   arguments keep their accuracy (the rounding of `a^2` is what a plain float32 evaluation
///   loses: 4.5 ulp near x = -9 for the attempt of 2 Dec);
/// - the product rounded once ([`times_exp32`], then [`scale2_32`]).
///
/// `±inf` give NaN, as PyTorch's vectorized float32 erf makes `gelu(+inf)` (and `-inf/2 * 0`).
#[inline(always)]
fn gelu_erf_far32<const F: bool>(x: f32) -> f32 {
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

// ------------------------------------------------------------------------------ erf, f64

// float64 erf and gelu(erf) (tools/fit_erf_f64.py: least squares in the relative error, each
// coefficient rounded to float64 in turn and the rest refitted; the errors quoted are the
// rounded fits' own). Below `|x| = 1` erf is an odd polynomial; elsewhere both go through
// `erfc(y) = e^(-y^2) erfcx(y)`, `erfcx` from a table of local polynomials in an exact
// variable (no rounded map such as `(X-1)/(X+1)`, whose error float64 cannot afford), the
// exponential's argument `y^2` an exact pair, and the product rounded once.

/// `erf(a)/a = C0 + z Q(z)`, `z = a^2 <= 1`: `C0 = 2/sqrt(pi)` as `hi + lo`, `Q` highest first.
const ERF64_C0: (f64, f64) = (std::f64::consts::FRAC_2_SQRT_PI, 1.533545961316588e-17);
/// `1/sqrt 2 - FRAC_1_SQRT_2`.
const FRAC_1_SQRT_2_LO: f64 = -4.833646656726457e-17;
#[rustfmt::skip]
const ERF64_Q: [f64; 12] = [5.94163058085718e-11, -1.1363499944855166e-09, 1.465731720302653e-08, -1.6349941884615286e-07, 1.6460965084063618e-06, -1.4925593043003592e-05, 0.00012055331019084302, -0.000854832697833138, 0.005223977624776343, -0.026866170645072993, 0.11283791670954865, -0.3761263890318375];
/// `erfcx y = c0_hi + (c0_lo + t Q(t))` by intervals of `y`, `Q` highest first ([`erfcx64`]).
#[rustfmt::skip]
#[allow(clippy::approx_constant)]
const ERFCX64_TABLE: [(f64, f64, [f64; 9]); 141] = [
    (1.0, 0.0, [-0.016722634224380525, 0.04136417579906084, -0.08595033429357997, 0.16666575363933228, -0.30090108737205407, 0.49999999962799896, -0.7522527780604682, 0.9999999999999871, -1.1283791670955126]),
    (0.9312335305806193, -4.526794232213496e-17, [-1149141.5762881518, -2.719242121199978, 10.648448244540075, 0.13234566611218454, -0.2433970688790442, 0.4126575382778742, -0.6350035159613331, 0.8662430376544368, -1.0083373447941046]),
    (0.9273078928940052, -2.0484139485048206e-18, [-4260821.412033189, -3.3787583770828853, 39.6652875989329, 0.13052981115977844, -0.24041050986764986, 0.4079345100019297, -0.6285927187913972, 0.8588392255327028, -1.0015987911139104]),
    (0.9234084650905133, -1.0474262390994438e-17, [3656236.296978191, 2.6403612472841083, -34.1588716577646, 0.12868832376001293, -0.2371353058705549, 0.4032712224047886, -0.6222552515585503, 0.8515101093622129, -0.9949177873753993]),
    (0.9195350235010968, 3.4395633196848655e-17, [-1393306.6388676076, -1.5900322731156176, 12.928167606800917, 0.12695396800201178, -0.2342910116586125, 0.3986668538578815, -0.6159901863332786, 0.844254835256953, -0.9882937533590174]),
    (0.9156873467102175, -4.430541168763193e-17, [2766040.168042165, -1.633802559820938, -25.85603017896833, 0.12521274680773054, -0.2312114504744517, 0.39412059546438366, -0.6097966096859846, 0.8370725601195297, -0.9817261154739543]),
    (0.9118652155301152, 4.518126669179786e-17, [-861876.9803563223, 3.5662962444362325, 7.974546870771921, 0.12345593251515254, -0.22840612720231038, 0.3896316500053461, -0.6036736192419947, 0.8299624514930042, -0.9752143066744385]),
    (0.9080684129754046, 2.353227061470068e-17, [1767990.5932055083, -3.415504150184098, -16.54754892680548, 0.12182022519323271, -0.22545290674456372, 0.3851992316537974, -0.5976203261761257, 0.8229236874149104, -0.9687577663771797]),
    (0.9042967242379889, -2.895200830428269e-17, [-983245.6648197513, -1.5199208267737048, 9.108120946805093, 0.12013953842200661, -0.2227005230496395, 0.3808225668895953, -0.5916358528657053, 0.8159554562734237, -0.9623559403799443]),
    (0.9005499366622917, -5.0448528347730136e-17, [2763278.698760998, 1.8289935293156485, -25.826656480533043, 0.1184718938928933, -0.219791873721765, 0.3765008930260706, -0.5857193345890268, 0.8090569566656489, -0.9560082807812458]),
    (0.8968278397207997, -1.4135327531455508e-17, [-261534.69564284667, -2.4777884906052385, 2.3800628039039866, 0.11688857675552684, -0.21712463971445126, 0.37223345854883544, -0.5798699174916115, 0.8022273972579914, -0.9497142459011345]),
    (0.8931302249899131, 4.143328843389116e-17, [-1155865.1441999283, 2.367404571796103, 10.720379841974053, 0.11525697085013616, -0.2144310870518464, 0.36801952347304134, -0.5740867602183837, 0.7954659966485798, -0.9434733002030696]),
    (0.8894568861260984, -1.1647459715806278e-17, [-3027582.664046513, 1.2546335578229248, 28.17465164015993, 0.11369558793064159, -0.21180394203403213, 0.3638583580551125, -0.5683690324382155, 0.7887719832317093, -0.9372849142168587]),
    (0.8858076188423403, 6.7481098767689974e-18, [2399227.5309097655, 2.987696421722721, -22.428531931144846, 0.1121347971504186, -0.20899427380050503, 0.3597492437004231, -0.5627159155684028, 0.782144595064272, -0.9311485644626477]),
    (0.8821822208848892, -8.241343823198193e-18, [78372.53057356965, 3.152763124484486, -0.786165414553862, 0.11060896740475265, -0.20645313442083338, 0.3556914720801276, -0.5571266012844638, 0.7755830797341451, -0.9250637333759483]),
    (0.8785804920102989, -5.1240614004327347e-17, [615267.2752665405, 1.276690356984576, -5.791793649947012, 0.10912146897686305, -0.2038616939626432, 0.35168434529822035, -0.551600293226066, 0.7690866942305045, -0.9190299092336836]),
    (0.8750022339627511, -2.7433085507580352e-17, [855871.3545682408, -1.2759238789876304, -8.034583020318497, 0.10766121890788861, -0.20131409764815847, 0.347727175689668, -0.5461362053323842, 0.7626547048160358, -0.9130465860812418]),
    (0.8696784258384076, 2.869042429112297e-17, [-10466.46390674331, 0.0030035257391255723, 0.3378206598959191, 0.10547153392256958, -0.19759866972530538, 0.3418836114304566, -0.5380550432165528, 0.7531258807922218, -0.9041651979340481]),
    (0.8626603470886091, -2.947387615432124e-17, [13398.797931491892, 0.04126272961133119, -0.5508187361805252, 0.10263707116008405, -0.19270999136475483, 0.3342608002132529, -0.5274907829725544, 0.7406394808958493, -0.892495478438471]),
    (0.8557326809221769, 1.87520324744373e-17, [3670.9383571946487, 0.061291110251829914, -0.18650509987412367, 0.09988492877145873, -0.18796832689032816, 0.3268259365531547, -0.5171617855029488, 0.7283979123924562, -0.8810189390164458]),
    (0.8488939329516233, 3.7692319321388086e-17, [12386.192161819774, 0.03479023944207923, -0.5101512874956935, 0.09721348687808852, -0.18334491510396814, 0.3195739819316292, -0.5070622566839841, 0.7163957295177433, -0.8697317968993148]),
    (0.8421426380127015, 4.7059453365775836e-17, [13919.252482001853, 0.04714003391572484, -0.5659505284009415, 0.09461762949123893, -0.17884840470716454, 0.31250004296204575, -0.49718655737673867, 0.7046276204828584, -0.858630353357069]),
    (0.835477359515958, -1.039614942671806e-18, [-11822.599285159364, 0.050178907206975376, 0.39554240659244966, 0.09209652204129552, -0.174484899577355, 0.3055993668653867, -0.4875291991659289, 0.6930884038900823, -0.8477109916331205]),
    (0.8288966888142021, -3.5678287949905476e-19, [9121.052547620306, 0.03080671262950544, -0.38434086476097284, 0.08964830256445003, -0.17021544638251154, 0.2988673372184546, -0.47808484024846004, 0.6817730252515375, -0.8369701749342696]),
    (0.8223992445854686, -2.4202454644534382e-17, [-8953.209793834083, 0.056738003859506635, 0.2910757641771899, 0.08726863918608768, -0.1660778693826232, 0.2922994698033745, -0.46884828061837175, 0.6706765536077677, -0.8264044444742858]),
    (0.8159836722310609, -1.4518431702565426e-17, [-12044.702804320661, -0.03181357425334624, 0.4076089214105382, 0.08496043072162617, -0.16204300658794463, 0.285891408482277, -0.4598144587307201, 0.6597941782431375, -0.8160104175695596]),
    (0.8096486432882727, -1.7255319014440363e-17, [6838.260519020182, -0.02441599803890867, -0.29552750251747906, 0.08271499330068689, -0.15810436846429307, 0.27963892148160246, -0.45097844710211205, 0.6491212054950992, -0.8057847857853414]),
    (0.8033928548573995, -2.1399155034272717e-17, [3774.8340151467023, 0.0515551866980025, -0.18011610730615993, 0.08053119336876029, -0.1542800095169245, 0.273537897429699, -0.4423354484776572, 0.6386530556544722, -0.7957243131311206]),
    (0.797215029042662, -4.8466287523974695e-18, [4263.128082577943, 0.02116201394534604, -0.19721494919712804, 0.07841260533363661, -0.150554740375648, 0.2675843417312518, -0.4338807924174185, 0.628385259953967, -0.7858258343037438]),
    (0.7911139124066717, -9.195380357116229e-18, [-1250.6967220886954, -0.03539768179287039, 0.00952775327073408, 0.07635483598844006, -0.14693029308380237, 0.26177437315534324, -0.4256099314461135, 0.6183134576422802, -0.7760862529769166]),
    (0.7850882754380847, -5.5175343167717315e-17, [-4914.829098910789, 0.07139321175116303, 0.14724382130952518, 0.0743501114670311, -0.14340012741517386, 0.25610422036740277, -0.4175184376948402, 0.6084333931411687, -0.7665025401357705]),
    (0.7791369120320927, -1.6331397443595804e-17, [-77.4355771957787, 0.05555300148383256, -0.032170935256433324, 0.07240568016921009, -0.13995836301820172, 0.25057021843504323, -0.4096019994744804, 0.5987409132829976, -0.7570717324552184]),
    (0.7732586389834182, 4.149269937074115e-17, [-7119.173513817508, 0.041744673653976876, 0.23146660290281973, 0.07051592280258905, -0.1366121815628847, 0.24516880589372572, -0.40185641793334503, 0.5892319646263312, -0.7477909307208614]),
    (0.7645757405863007, 4.406928730076297e-17, [16.99655629946898, 0.01471959077560078, -0.03518615132368136, 0.06778055269622155, -0.13174730246540467, 0.23730774732941104, -0.3905494863761578, 0.5753040341156903, -0.7341448008557012]),
    (0.7532437073542503, 2.0380018767893535e-17, [-14.989709379043674, 0.013838373682758792, -0.02861384035222888, 0.06430896074446446, -0.1255573917524899, 0.2272589008764026, -0.3760342972706495, 0.5573396799146761, -0.716449014636157]),
    (0.742183839731027, 4.1917676261662006e-17, [-26.41419041218557, 0.013713865599308008, -0.025214944594377744, 0.0610283161940218, -0.11968373984775574, 0.21768118377928128, -0.36213230953642295, 0.5400412382795624, -0.6993041347510126]),
    (0.731387690070078, -3.653757266922307e-17, [48.299913157656434, 0.012516263970826802, -0.03476672267773278, 0.05792765858418817, -0.11410846343900714, 0.2085505616817215, -0.34881483574382305, 0.523380643625521, -0.6826897934590588]),
    (0.7208471222268744, 2.590780460180203e-17, [5.70570933736766, 0.012547153860078826, -0.02690942478855061, 0.054996200187439, -0.10881676247870718, 0.19984431789816343, -0.3360546489777879, 0.5073311405380012, -0.6665864794189211]),
    (0.7105542984920366, 5.287074171320692e-17, [7.610990739274644, 0.010868781362986026, -0.02577848076930066, 0.0522244605719728, -0.1037919839803216, 0.19154097645347432, -0.32382590301297015, 0.4918672172011339, -0.6509754977961755]),
    (0.7005016671318315, 6.240313631897605e-18, [-22.152398242351683, 0.010220848975889098, -0.020004583275432825, 0.049602850336055986, -0.09902019811598019, 0.18362022996867833, -0.3121040569525743, 0.4769645424622615, -0.6358389323934436]),
    (0.6906819505053063, 5.5444113408906424e-17, [5.875990065688173, 0.009482067633880566, -0.02292991033159789, 0.04712283269891535, -0.09448704227102808, 0.17606287188374165, -0.30086580439485383, 0.46259990632109255, -0.6211596096931782]),
    (0.681088133728991, 2.6716161107113018e-17, [28.008205264121965, 0.009589404526096508, -0.025047750515281828, 0.044776141849381806, -0.09018011892698018, 0.16885073290790675, -0.2900890065886522, 0.4487511636449798, -0.6069210647092538]),
    (0.6717134538616784, -2.4148941276922233e-18, [-47.2179032075182, 0.008594183622797168, -0.012707740121880704, 0.04255537126235239, -0.08608798430604085, 0.16196662130007924, -0.2797526295093425, 0.4353971809239919, -0.5931075085494877]),
    (0.6625513895832782, -4.825721228259835e-17, [55.637304283288444, 0.007925739085623816, -0.027000677895653493, 0.04045315344387454, -0.08219707087818708, 0.1553942668388273, -0.2698366845929906, 0.42251778589082817, -0.5797037975968603]),
    (0.6535956513431375, 3.093013044281454e-17, [39.29984413332284, 0.0076148009829825735, -0.023570254667654233, 0.03846273160145186, -0.078498864741775, 0.149118268139419, -0.2603221726582796, 0.4100937198412804, -0.5666954042225038]),
    (0.6448401719545404, 9.47269833014522e-18, [-15.752955355490867, 0.007676551227840859, -0.014419848973566393, 0.036577757891185336, -0.07498256334649439, 0.14312404318575941, -0.25119103131449666, 0.3981065925009114, -0.5540683889485001]),
    (0.6362790976133429, 3.691860300513232e-17, [10.855490662919758, 0.006746753078598164, -0.01750590726212058, 0.03479243929886597, -0.0716376344276986, 0.13739778283064585, -0.24242608516610742, 0.3865388392929561, -0.541809373983212]),
    (0.6279067793198737, 1.8949752599320682e-17, [-35.908143407174705, 0.006118906436258821, -0.009694770393473448, 0.033101005328880745, -0.06845620406028137, 0.1319264071154904, -0.234010998838442, 0.37537368087118833, -0.529905518056258]),
    (0.619717764684334, 4.991367679355891e-17, [6.134985786716072, 0.006535034722972571, -0.015180145462357008, 0.0314980894956577, -0.06542847088800875, 0.12669752417049995, -0.22593023279392566, 0.3645950847896826, -0.5183444924843712]),
    (0.6077664727145606, 5.239799250163697e-17, [0.0637925928312787, 0.0056158508682960274, -0.013204467478221411, 0.029249359854625845, -0.06115931464407201, 0.1192833557478573, -0.21440378722560444, 0.34911866428355254, -0.5016199921086218]),
    (0.5924253530340741, 3.9605982178374507e-17, [-0.09836066667417095, 0.0050061807885351355, -0.011780801002308145, 0.026517377147708587, -0.05593573694647062, 0.11014197367408783, -0.2000732046087361, 0.3296989811198977, -0.48041393721449405]),
    (0.5777283868046318, 1.1938406017394495e-17, [0.017867038705335157, 0.00447141391070872, -0.0106656283677812, 0.024059733939864256, -0.05119816626409164, 0.10177813713496327, -0.18683590723349788, 0.31157078313981446, -0.46038071985265705]),
    (0.563640151432223, 3.245987659632329e-17, [0.05319140396261941, 0.004001783398913545, -0.009628392112173048, 0.021847096737258535, -0.046898012756775964, 0.09411977331686035, -0.17459928559433988, 0.2946359862921896, -0.4414427325374907]),
    (0.5501275565304629, -1.0207020087076608e-17, [0.05572489819305202, 0.003573635958306779, -0.008683586595611852, 0.019853454577181434, -0.04299181932828761, 0.08710199546962553, -0.16327928172898087, 0.27880478079725757, -0.42352823529085704]),
    (0.5371596683870558, -4.1244729972462984e-17, [0.09958595291995724, 0.0031967557584912463, -0.007862913351518192, 0.018055701536213806, -0.039440724660850385, 0.08066633966744721, -0.15279953960920203, 0.26399487001022015, -0.40657086270040643]),
    (0.5247075491166071, 4.9514180292907415e-17, [0.058219448436740685, 0.0028656214509555963, -0.007079784900724301, 0.016433316482703974, -0.03620997634848566, 0.07476008726999245, -0.14309064546935307, 0.2501307846359389, -0.39050917615028374]),
    (0.5127441091590655, 2.576188244285121e-17, [-0.07579891857945899, 0.002574349995141741, -0.006320004163965855, 0.014968053312699011, -0.03326843739932542, 0.06933566298141337, -0.13408944800911848, 0.2371432643449664, -0.37528625676813504]),
    (0.5012439719148646, 4.002254005860623e-18, [-0.06015494794012711, 0.0023125529712666273, -0.0057195491130986615, 0.013643677879992006, -0.0305881691056087, 0.06435009963415711, -0.12573844958036037, 0.22496869972825626, -0.3608493351008762]),
    (0.49018334942581243, 1.8926660581281767e-17, [0.06365394748611089, 0.002073161105327325, -0.005246018901380759, 0.012445731240890509, -0.028144142168557377, 0.059764561921485826, -0.11798526050922781, 0.21354862831090116, -0.34714945394812396]),
    (0.4795399281164713, -1.448873849716389e-17, [-0.07792796821107627, 0.0018627710899319406, -0.004669721719393667, 0.011361319860254387, -0.02591392910207848, 0.05554392224829234, -0.11078210963263904, 0.20282927903696857, -0.33414116115260706]),
    (0.4692927637055388, 2.5484119844593564e-17, [0.017037466438817477, 0.0016741245135583438, -0.0042842208778946815, 0.010378949547539774, -0.02387727824655615, 0.0516563826956022, -0.10408540492522526, 0.19276116024907047, -0.3217822294766177]),
    (0.4594221844817841, -2.3832569391409915e-17, [-0.10752377855413842, 0.0015093186644692291, -0.0038120276799917053, 0.009488355409908703, -0.02201609329698415, 0.04807313782789353, -0.09785533874606932, 0.18329868672743918, -0.3100334009873347]),
    (0.4499097022154538, 1.579010920874076e-17, [0.01353115898754395, 0.0013558757472770142, -0.003526023030822171, 0.008680374410757297, -0.020313984287216664, 0.04476807369022228, -0.0920555329644426, 0.1743998418324787, -0.2988581536357696]),
    (0.44073793004469763, 8.015991439072337e-18, [-0.00023817081584123054, 0.0012276335667414087, -0.0031949826868387394, 0.007946801810323536, -0.018756291364659457, 0.04171749891224274, -0.08665271962785259, 0.16602587121944343, -0.2882224879478077]),
    (0.4318905067382858, 5.204168023622217e-19, [0.014935980825569429, 0.0011049000086328794, -0.0029129218942952166, 0.007280312811652614, -0.017329742179630587, 0.038899904298997236, -0.08161645345789674, 0.15814100497056258, -0.27809473195451245]),
    (0.4191940716980815, -8.503421494787743e-18, [2.2720701086353575e-06, 0.000948820371079601, -0.0025202731132080362, 0.00639217447649766, -0.015410004196015915, 0.03506809188919813, -0.07468898194678583, 0.14715919641054256, -0.2637913942182195]),
    (0.40326423632801306, 1.0090450509062715e-17, [-0.0003263139048167862, 0.0007755066176734893, -0.002089950762774291, 0.0053869975524982495, -0.013207276275505664, 0.03060645174518049, -0.06649399703802863, 0.13394071275053057, -0.246238650127984]),
    (0.3883817474536318, 1.5640373630453563e-18, [-0.00030955554903121105, 0.0006356025219102583, -0.0017384357086645747, 0.004552013502279224, -0.011348513000227288, 0.026777758882666924, -0.0593330657836105, 0.12215937507761322, -0.23024637610898904]),
    (0.37445444643233144, -5.0381273677112385e-18, [-0.00034278891999831767, 0.0005224032216271034, -0.0014498215311854069, 0.003856513757529627, -0.009775854969206977, 0.023483864429425634, -0.05306059639993785, 0.1116353307213476, -0.2156464539167047]),
    (0.3614000135629346, -1.175802975917735e-17, [1.833127556305384e-05, 0.00043056530144976494, -0.0012132214530729095, 0.003275647721945356, -0.008441817283888495, 0.020643022392082003, -0.047553416462646554, 0.10221385962667835, -0.20229163234049266]),
    (0.34914475683760793, 9.863996767286313e-18, [2.8222776614026955e-05, 0.00035580212138645265, -0.001017288389183574, 0.002789248820610005, -0.007307325634116927, 0.018186966045931344, -0.042707050437452314, 0.09376153111695251, -0.19005263309444123]),
    (0.33762256742895974, -2.3120411392104316e-17, [-0.00019575145092685253, 0.00029475386737016183, -0.0008546197940820138, 0.002380906241343398, -0.006340136571992972, 0.016058535612768363, -0.038432656654146136, 0.08616299464551123, -0.17881569620156337]),
    (0.32677401676755813, -8.713348152328096e-18, [-9.102045419409465e-05, 0.00024486933792082944, -0.0007203721349831907, 0.0020372290513652213, -0.005513573135249286, 0.014209747951362659, -0.034654500088491295, 0.07931829290761755, -0.1684804928408106]),
    (0.3165455741595612, 3.974543439010561e-18, [8.923366145821873e-05, 0.00020387706622627434, -0.0006089456955731068, 0.0017472620260373553, -0.004805508620073379, 0.012600221636571835, -0.031307861694055195, 0.07314060649203108, -0.1589583462318564]),
    (0.30688892727641626, 2.4059367485854765e-17, [-0.00025051204961059546, 0.0001702304191486613, -0.0005148747186339232, 0.001502018180991309, -0.004197543173377328, 0.011195888567601371, -0.028337304372859678, 0.06755435597958129, -0.1501707114019357]),
    (0.2977603906498997, 8.483366962685218e-18, [-0.00013424356343643453, 0.00014243260781012995, -0.00043720619847204196, 0.0012941071473353753, -0.0036743342034648717, 0.009967937209379036, -0.025695231071778922, 0.06249360088148865, -0.14204787306771988]),
    (0.28912038963190817, 1.3066344962672667e-17, [-1.1837219021368496e-05, 0.00011949833843738989, -0.0003721945199275413, 0.0011174352701202564, -0.0032230618433312084, 0.008891943591366792, -0.023340682780100774, 0.05790068571095347, -0.1345278277358282]),
    (0.28093300921488107, -1.2823215691332933e-17, [-5.2742960789684714e-05, 0.00010046399769490994, -0.00031725522768063797, 0.0009669663146164041, -0.002832985803111546, 0.007947154892797233, -0.021238334052446458, 0.053725092316523795, -0.1275553217674988]),
    (0.2731655987248152, 2.340120606997697e-17, [3.6143032730522066e-06, 8.467159857140155e-05, -0.0002712272909158287, 0.0008385272806016068, -0.0024950862702640087, 0.007115897354570994, -0.019357651566712243, 0.049922464785201924, -0.12108102179775637]),
    (0.2657884247508369, 2.1772950783579043e-17, [-4.824749142802782e-05, 7.149673140830914e-05, -0.00023215808402599848, 0.0007286525395040148, -0.002201772205978629, 0.00638308574508318, -0.017672187584096444, 0.0464537790724072, -0.11506079773294675]),
    (0.25877436580907515, 2.7192772494523266e-17, [-9.457685633428371e-05, 6.053602829196162e-05, -0.0001991173850458239, 0.0006344567816820414, -0.0019466391829998787, 0.005735815987218058, -0.01615898530479713, 0.04328463429333824, -0.10945510172227908]),
    (0.24888049618416236, 2.586404163293881e-18, [-1.3803502223003963e-05, 4.7364294563445795e-05, -0.00015907478963910726, 0.0005174047591734759, -0.0016239139700667071, 0.004901537196297855, -0.014169205381429012, 0.03902706049148645, -0.10174712033584284]),
    (0.23674537874014628, 6.033493354190935e-18, [-9.9134287714653e-06, 3.437482225086135e-05, -0.00011860904507411552, 0.00039686079149636884, -0.0012832731430092517, 0.003997742606926062, -0.011953244790450372, 0.03414320819276878, -0.09261813510737256]),
    (0.22567919160681937, 1.226053071586004e-17, [-6.878656736487513e-06, 2.5151122072268116e-05, -8.912900484717794e-05, 0.00030664507036077203, -0.001021067880566983, 0.0032811548572282746, -0.010140340309815515, 0.030011846680756994, -0.08461290591397291]),
    (0.21555247915117748, 9.862318426802076e-18, [-5.256906130873936e-06, 1.8547102441116042e-05, -6.747288335194382e-05, 0.0002386108101456457, -0.0008177790748503062, 0.0027091690265734635, -0.008648047165702343, 0.026497953019466815, -0.07756083123352232]),
    (0.2062551523865009, -1.3203291610029131e-17, [-3.4008920103518244e-06, 1.3780223178442649e-05, -5.1452035847417775e-05, 0.00018692738649391574, -0.0006590772122382024, 0.002249667615958396, -0.007412466311519684, 0.023493780155093746, -0.07132151111469547]),
    (0.19769310614997299, -1.2257366840996107e-17, [-2.3305803203497458e-06, 1.0313040525174785e-05, -3.950438542779207e-05, 0.0001473881697315892, -0.000534361307180998, 0.0018782606061469862, -0.006383728669991447, 0.02091279201281439, -0.06577872153940784]),
    (0.18978550290899462, -8.701310755605817e-19, [-1.7573139372497603e-06, 7.772345321344969e-06, -3.0530690727615296e-05, 0.00011693459729997634, -0.0004357302376887014, 0.001576295143783041, -0.005522655699665707, 0.018685059442819507, -0.060835713232417814]),
    (0.18246257834403473, -1.3752026400767285e-17, [-1.49094304380611e-06, 5.89717535241987e-06, -2.3744361926571163e-05, 9.332616115857769e-05, -0.0003572529448976111, 0.0013294090376472765, -0.004798271405483462, 0.016753740328878178, -0.05641151932430861]),
    (0.17566385800258433, 7.661583175305738e-18, [-8.805219919116205e-07, 4.503343004692874e-06, -1.8583312816876336e-05, 7.49097371151111e-05, -0.00029444647040168415, 0.001126471569090142, -0.004185935370952919, 0.015072370211678551, -0.05243803682968352]),
    (0.16933669983724775, 1.2479681676450121e-17, [-9.070626225447851e-07, 3.4604551471709247e-06, -1.4625549170392434e-05, 6.045707772364184e-05, -0.0002438999346882549, 0.0009588022813508688, -0.003665932100133074, 0.013602763131875115, -0.048857705633058086]),
    (0.1634350966466223, 4.318675563398527e-18, [-5.689053175869108e-07, 2.675109602848569e-06, -1.1578932428488863e-05, 4.904947449458137e-05, -0.00020300145556653468, 0.0008195907609372498, -0.0032223980373452766, 0.012313375020565741, -0.04562165181163972]),
    (0.1579186869907276, -4.557341020264224e-18, [-3.660984617518224e-07, 2.080015574569158e-06, -9.21659097041626e-06, 3.9995286235169755e-05, -0.0001697387381685337, 0.0007034627902245681, -0.0028425001941903612, 0.011178019997957958, -0.04268819403426026]),
    (0.1527519342528475, -1.6228857677412594e-18, [-4.030716249598024e-07, 1.6263288913348458e-06, -7.372959120647523e-06, 3.277055533745483e-05, -0.00014255218739804318, 0.0006061538338348564, -0.0025158034974783645, 0.010174857627439565, -0.04002163554397416]),
    (0.14790344203959, -2.3466840457189596e-18, [-3.935547042279746e-07, 1.2785120634572148e-06, -5.928055493687425e-06, 2.6975952928077747e-05, -0.00012022614530507973, 0.0005242617605378709, -0.0022337805955483926, 0.00928558946717457, -0.03759128205353639]),
    (0.14334538069033212, -1.3497708015486875e-17, [-3.9955821565228546e-07, 1.0102354447537502e-06, -4.7892209470911514e-06, 2.2305361016509175e-05, -0.00010180783583355917, 0.00045505843707712514, -0.001989429865948286, 0.008494818238110461, -0.03537063933173027]),
    (0.13905300477781452, 8.327521565006826e-18, [-2.628363986252073e-07, 8.023137533874344e-07, -3.888484009455442e-06, 1.8522789457450736e-05, -8.654653442633231e-05, 0.0003963453377226252, -0.0017769760954541981, 0.007789534051310665, -0.033336754470223204]),
    (0.13306497124120825, 4.18468650022013e-18, [-1.1225346657034362e-07, 5.735982228247669e-07, -2.8688857975797117e-06, 1.4125157195360693e-05, -6.830737344314054e-05, 0.0003241434207460284, -0.0015078600444154123, 0.006868209524587262, -0.03059315435554446]),
    (0.12582358819498807, 1.731149258735859e-18, [-7.007970998368739e-08, 3.7198887440329513e-07, -1.94045914618204e-06, 9.975465047606913e-06, -5.0434292677069583e-05, 0.00025057644539229615, -0.001222357680180978, 0.0058489677415075264, -0.02742277038936697]),
    (0.11931528862713332, 4.9083845554602595e-18, [-4.419063170664494e-08, 2.454020535075994e-07, -1.3334469175692198e-06, 7.1475359203292125e-06, -3.7724401975814695e-05, 0.000195917979576294, -0.0010004316607195559, 0.005018832389935322, -0.02471274729452929]),
    (0.1134358772147405, -2.83995804299078e-18, [-2.8350387938323928e-08, 1.644969546813167e-07, -9.299302116681093e-07, 5.190583566456329e-06, -2.855882009950347e-05, 0.00015479600691360653, -0.0008260275842981061, 0.0043364764872506276, -0.022379364251792787]),
    (0.10809973724654746, 2.17250001322154e-18, [-1.879267459651387e-08, 1.119239290656349e-07, -6.574920245613366e-07, 3.816864845486997e-06, -2.1862663012168037e-05, 0.00012349674720202035, -0.0006875774868984437, 0.00377082811474211, -0.020356860318401043]),
    (0.10323591747815693, 3.865003583278955e-19, [-1.2322680620552295e-08, 7.72243419125539e-08, -4.708942024018855e-07, 2.839611153404646e-06, -1.6911021208403372e-05, 9.941557595505892e-05, -0.0005766362739785371, 0.003298251124531807, -0.0185930542053256]),
    (0.09878515717340754, 3.3128178290144176e-18, [-8.69857784892549e-09, 5.398558415169877e-08, -3.413121461241452e-07, 2.135679408801568e-06, -1.3207828306666968e-05, 8.070107369458827e-05, -0.0004869631099482833, 0.002900569640845202, -0.01704614889467775]),
    (0.09469759959536303, -5.469015376166855e-18, [-5.815767902633394e-09, 3.820642431409455e-08, -2.502075902106802e-07, 1.6226746610767978e-06, -1.0408949210501306e-05, 6.602060174330176e-05, -0.0004138934081953244, 0.0025636649766304412, -0.015682371849997035]),
    (0.09093101671883685, -2.7937537192184287e-18, [-4.169192330753406e-09, 2.7353825166839115e-08, -1.8536029302150965e-07, 1.2446998714332461e-06, -8.272573143797645e-06, 5.440361045024925e-05, -0.0003539035466366642, 0.0022764664440498676, -0.01447421228976114]),
    (0.0874494177846225, 3.3149485938623315e-18, [-2.6045543371450436e-09, 1.9797864798090327e-08, -1.387064644584627e-07, 9.633387775297695e-07, -6.626732686625807e-06, 4.5135438408213914e-05, -0.0003043052518064185, 0.002030216857077155, -0.013399090341575739]),
    (0.08422194904914018, -4.206528381212926e-18, [-1.9940888986277365e-09, 1.4476863255658332e-08, -1.0475393395869204e-07, 7.5186429756596e-07, -5.347742310882331e-06, 3.76843860661244e-05, -0.0002630284134452183, 0.001817932011205635, -0.012438342194405214]),
    (0.081222016591888, -5.67597234333803e-19, [-1.2809032164294088e-09, 1.0688772065920408e-08, -7.982196861104662e-08, 5.914663192089993e-07, -4.345690020745541e-06, 3.165101861089349e-05, -0.0002284649781721682, 0.0016339987621519707, -0.011576438957052513]),
    (0.07842658154261602, -2.2854262059928317e-18, [-1.1825381000373163e-09, 7.964236431031686e-09, -6.131678730612803e-08, 4.6876179645891935e-07, -3.554558086730551e-06, 2.6732511390248342e-05, -0.00019935553867205463, 0.001473873235821146, -0.010800380113234368]),
    (0.07581558972469768, -2.7645876350134914e-18, [-6.075310921757482e-10, 5.985684417931242e-09, -4.7490406928959126e-08, 3.741306000903783e-07, -2.9254110350992798e-06, 2.269729884722044e-05, -0.0001747061067620831, 0.0013338521350615958, -0.01009921865622184]),
    (0.07337150692917299, 6.7967151635116e-18, [-5.145013676198603e-10, 4.535501245352183e-09, -3.7045035657745747e-08, 3.0058996548116215e-07, -2.4216514324238524e-06, 1.9366862300043365e-05, -0.00015372645366403478, 0.0012108979337873364, -0.009463686425624349]),
    (0.07107893782589438, 3.3785064809843427e-18, [-3.418501672889534e-10, 3.463594576405912e-09, -2.9104505315321765e-08, 2.430245681978584e-07, -2.015675402967081e-06, 1.6602517846848293e-05, -0.00013578401663530298, 0.001102504166695037, -0.008885896337676107]),
    (0.06789491988272056, 1.3503833174944095e-18, [-2.6619560337658953e-10, 2.3465472388851033e-09, -2.0516872286853217e-08, 1.7863199721819463e-07, -1.5455251079407167e-06, 1.3286478859435497e-05, -0.00011347726331752932, 0.0009627603800783904, -0.00811298903062329]),
    (0.06406571555128014, 2.8830945967904544e-18, [-1.5322135241134962e-10, 1.4267151786791907e-09, -1.3152023869048781e-08, 1.2077644632490307e-07, -1.1028269696044897e-06, 1.0012065750287508e-05, -9.036264272260811e-05, 0.0008106972553172655, -0.007229144948110041]),
    (0.06064311514114366, 2.380306301475733e-18, [-9.1165579027561e-11, 8.891798500451438e-10, -8.621103532419714e-09, 8.329633743949747e-08, -8.006657360407159e-07, 7.656047290416833e-06, -7.282010176034379e-05, 0.0006888980358610003, -0.006481536984354881]),
    (0.05756592336481547, -9.912004141668723e-19, [-5.5391797412779035e-11, 5.667816027138938e-10, -5.76689335417756e-09, 5.849107768434201e-08, -5.904725853046168e-07, 5.932581068245766e-06, -5.931884686909918e-05, 0.0005902239191084372, -0.005843661481610977]),
    (0.05478458695295453, -3.170278965083288e-18, [-3.4723797446841175e-11, 3.6877596902072257e-10, -3.9295806782212905e-09, 4.1751834613323966e-08, -4.4171027516928334e-07, 4.652785875926479e-06, -4.879533090433902e-05, 0.0005094577135207934, -0.005295134559944755]),
    (0.05225856230371755, -1.905543814219956e-18, [-2.1906254611242804e-11, 2.445043534122621e-10, -2.723380158276351e-09, 3.025327365899737e-08, -3.347547318464223e-07, 3.689373229657343e-06, -4.049764904348795e-05, 0.0004427284736762756, -0.004820077565585235]),
    (0.04995436401029934, 8.555734395184538e-20, [-1.3758297477730772e-11, 1.6493850177668766e-10, -1.9170330923915217e-09, 2.2225008002964977e-08, -2.5674086922360504e-07, 2.955009865238381e-06, -3.388571316210463e-05, 0.0003871242928030549, -0.004405976863777447]),
    (0.04784409793533709, -4.2023544262879407e-19, [-9.243960280820768e-12, 1.1305351928495457e-10, -1.3688091378529558e-09, 1.6535158765699745e-08, -1.9907899309354566e-07, 2.3887836687291386e-06, -2.856590558982655e-05, 0.00034042695801755635, -0.004042865615091024]),
    (0.045904344454949904, -2.147956989473952e-18, [-6.3357552058579426e-12, 7.864090983564822e-11, -9.903733937554438e-10, 1.2446554690028294e-08, -1.559367148886796e-07, 1.9475644219205887e-06, -2.4247505952343136e-05, 0.00030092707676011686, -0.0037227279492399825]),
    (0.04411529834806522, -3.3505506749487513e-18, [-4.076493132691101e-12, 5.5455807651683355e-11, -7.254492627551852e-10, 9.470818791110873e-09, -1.232919657423677e-07, 1.6003850424399757e-06, -2.0713139207757717e-05, 0.00026729329498336883, -0.0034390592198495565]),
    (0.042460099233199176, -1.7940895420589535e-18, [-2.9130297515480088e-12, 3.960608704539205e-11, -5.374295109024563e-10, 7.279244583055787e-09, -9.833101925819573e-08, 1.3247237435397125e-06, -1.779841714948922e-05, 0.00023847847471775163, -0.003186537415734447]),
    (0.04092430517394598, 2.253843584906494e-18, [-1.8534160616975275e-12, 2.8623183648382175e-11, -4.024209296154724e-10, 5.647323273919235e-09, -7.90590887595382e-08, 1.1040044632051358e-06, -1.5377709094214697e-05, 0.00021365150897140878, -0.0029607748119981504]),
    (0.039495475046439, 1.6003119476639448e-18, [-1.3562276543757923e-12, 2.0915617059119303e-11, -3.042927322792736e-10, 4.419606412399658e-09, -6.404438535968732e-08, 9.258913218035407e-07, -1.3354062300434894e-05, 0.00019214717042458787, -0.0027581282720010114]),
    (0.03816283437883575, -1.1794717917914168e-18, [-1.1860070137623487e-12, 1.544245401758568e-11, -2.3220273488214025e-10, 3.4870836707570803e-09, -5.224728995202986e-08, 7.811087602071927e-07, -1.1651972434471167e-05, 0.000173428810929242, -0.0025755529198580682]),
    (0.03691700586438421, -3.0300029826374304e-19, [-8.700642531634677e-13, 1.1512512729998982e-11, -1.7875871042321008e-10, 2.772395433936934e-09, -4.290476293544552e-08, 6.626148062011164e-07, -1.0212137699119188e-05, 0.00015706032952428727, -0.0024104882317940936]),
    (0.03574979042827294, 1.6027955039322487e-18, [-5.616141725691676e-13, 8.661024246734565e-12, -1.3875242750527105e-10, 2.2200281532904112e-09, -3.5451093343233365e-08, 5.650148025869341e-07, -8.987610873559201e-06, 0.0001426849008637792, -0.0022607686049148676]),
    (0.034130853321913276, -2.0621626191377093e-18, [-3.4193309598819115e-13, 5.751573125976471e-12, -9.623360717098703e-11, 1.6108063130227078e-09, -2.6915164538793786e-08, 4.489326426781975e-07, -7.474676512053225e-06, 0.00012423002773371826, -0.002061007472374518]),
    (0.03218702473823041, -8.496993483048684e-19, [-1.9220371272017875e-13, 3.416212253682717e-12, -6.053122735409663e-11, 1.0729357977352545e-09, -1.898826053381203e-08, 3.3551337071665267e-07, -5.918954636805553e-06, 0.00010425273288531589, -0.0018333012574482908]),
    (0.03045237479977461, 1.2546773289431243e-18, [-1.1147836084164727e-13, 2.0869293375485414e-12, -3.904070061486076e-11, 7.305893006714608e-10, -1.3652559383380097e-08, 2.547641181249793e-07, -4.747267582495068e-06, 8.833397851233713e-05, -0.0016412995038520147]),
    (0.028894903811938218, 3.8955280851866956e-20, [-6.640630425339991e-14, 1.3075015026545992e-12, -2.5753642289135597e-11, 5.074203972572481e-10, -9.984844483620816e-09, 1.9622672937658582e-07, -3.851383333272809e-06, 7.549442845754638e-05, -0.0014779184299220857]),
    (0.02748881515193487, 1.4137334234022685e-18, [-4.0082304863747124e-14, 8.380872888945095e-13, -1.733818022349859e-11, 3.587762174026987e-10, -7.415600538743799e-09, 1.530961413055421e-07, -3.157009897786839e-06, 6.502489518712832e-05, -0.0013377458661828167]),
    (0.026213083193818983, -7.942519961483657e-19, [-2.5063319023625647e-14, 5.484503590619438e-13, -1.188995979740469e-11, 2.5782278778274626e-10, -5.584807646184498e-09, 1.2084683369223598e-07, -2.612168943286172e-06, 5.640332594797175e-05, -0.001216589761296326]),
    (0.025050400098010076, -1.0240674036398839e-19, [-1.6117133864726056e-14, 3.65755663984379e-13, -8.292110709164681e-12, 1.8803404142274331e-10, -4.259790431711527e-09, 9.640938705647353e-08, -2.179860684671277e-06, 4.9239684179206136e-05, -0.0011111626850591498]),
    (0.023986389566134008, 4.546796360905795e-19, [-1.033367635833369e-14, 2.481752862203189e-13, -5.872899897304996e-12, 1.390028575526525e-10, -3.2871233532726242e-09, 7.766440794871164e-08, -1.8333313951089777e-06, 4.3238616600915314e-05, -0.0010188574872141741]),
    (0.023009011874778183, -1.0828270658206756e-18, [-6.994172325815836e-15, 1.7109044731296612e-13, -4.2186180717459286e-12, 1.0404084022835257e-10, -2.5637667922632047e-09, 6.312440882385539e-08, -1.5529574330685187e-06, 3.8173705927838403e-05, -0.0009375852313816467]),
    (0.022108108052519827, -4.7081340478585653e-20, [-4.816318585468055e-15, 1.1969038143871422e-13, -3.0701143243495915e-12, 7.876869630765999e-11, -2.0193481201600292e-09, 5.17296827038366e-08, -1.3241552791446345e-06, 3.386941898363523e-05, -0.0008656564170014193]),
    (0.021275046685371106, 1.84766862417374e-20, [-3.0202601931812854e-15, 8.487342253588263e-14, -2.2616186217414785e-12, 6.026950539636814e-11, -1.6050576017562902e-09, 4.271483555502049e-08, -1.1359557862320675e-06, 3.018825800621177e-05, -0.0008016927708439582]),
    (0.0205024473846148, -6.13643128602669e-19, [-2.3036160226090838e-15, 6.094578308565882e-14, -1.6845141650973631e-12, 4.6569440938775795e-11, -1.2865559378428406e-09, 3.551999628282147e-08, -9.800162875649725e-07, 2.702148790063081e-05, -0.000744560941698697]),
];

/// Rows of [`ERFCX64_TABLE`].
const ERFCX64_ROWS: usize = 141;

/// [`ERFCX64_TABLE`] by column: each coefficient of a row is fetched by its own index (a
/// gather in the vectorized loops).
const ERFCX64_COLS: TableCols<f64, ERFCX64_ROWS, 9> = table_cols(&ERFCX64_TABLE, 0, 0.0);

/// `erfcx y = e^(y^2) erfc y` for `0 <= y < 28` as `(hi, lo)` (`|lo| < 0.08 hi`) from
/// [`ERFCX64_TABLE`] (fit error 1.5e-18 relative): the row is read off `y`'s exponent and
/// first four mantissa bits (row 0 below `2^-4`), and `t = y - c` is exact (`c`, the row's
/// centre, is `y`'s bits cut after the fourth mantissa bit plus half of that bit, in `y`'s
/// binade; `c = 0` in row 0). `|t Q(t)| < 0.072 erfcx y`, so its rounding costs little.
#[inline(always)]
fn erfcx64<const F: bool>(y: f64) -> (f64, f64) {
    let yb = y.to_bits();
    // (biased exponent << 4 | top four mantissa bits) - that of 2^-4, plus 1.
    let raw = (yb >> 48) as i64 - (1019 * 16 - 1);
    let row0 = raw < 1;
    let i = (if row0 { 0 } else { raw } as usize).min(ERFCX64_ROWS - 1);
    let c = f64::from_bits((yb & 0xffff_0000_0000_0000) | 0x0000_8000_0000_0000);
    let t = y - if row0 { 0.0 } else { c };
    let cols = &ERFCX64_COLS;
    let q = [
        cols.q[0][i],
        cols.q[1][i],
        cols.q[2][i],
        cols.q[3][i],
        cols.q[4][i],
        cols.q[5][i],
        cols.q[6][i],
        cols.q[7][i],
        cols.q[8][i],
    ];
    (cols.hi[i], fma64::<F>(t, horner64::<F>(t, &q), cols.lo[i]))
}

/// `e^-(h + l)/2 = 2^n (1 + r + s)` for `0 <= h <= 1600`, `|l| <= ulp(h)`: `(n, r, s)` with
/// `|r| <= ln2/2` and `s = e^r - 1 - r` plus the low part of the reduced argument (the
/// reduction's rounding error and `-l/2`), the float64 [`exp_neg_half32`].
#[inline(always)]
fn exp_neg_half64<const F: bool>(h: f64, l: f64) -> (i64, f64, f64) {
    let (n, r, rl) = reduce_ln2_lo_f64::<F>(-0.5 * h);
    let rl = rl - 0.5 * l;
    let q2 = (r * r) * horner64::<F>(r, &EXPM1_POLY_F64);
    // e^(r + rl) = (1 + r + q2)(1 + rl) to 2^-100.
    (n, r, q2 + fma64::<F>(rl, r + q2, rl))
}

/// `(hi + lo)(1 + r + s)` ([`exp_neg_half64`]) for `|lo| < |hi|/2` as an unevaluated sum
/// `(sum, low)`, `|low| <~ ulp(sum)`: `hi + hi r` by an exact product and Fast2Sum, the rest
/// (`lo (1 + r)`, `(hi + lo) s` and the low parts) in `low` (the float64 [`times_exp32`]).
#[inline(always)]
fn times_exp_pair64<const F: bool>(hi: f64, lo: f64, r: f64, s: f64) -> (f64, f64) {
    let (hr, hrl) = two_prod64::<F>(hi, r);
    let sum = hi + hr;
    let se = (hi - sum) + hr;
    (
        sum,
        fma64::<F>(hi + lo, s, fma64::<F>(lo, r, lo) + (se + hrl)),
    )
}

/// `erf x`, f64:
/// - `|x| < 1`: `a (C0 + z Q(z))` ([`ERF64_Q`], fit error 1.9e-19 relative), with `a C0` and
///   `a^3 q0` (`q0` the lowest coefficient) as exact products added by Fast2Sum and the
///   rounding error of `z = a^2` carried, so that what is rounded before the last addition is
///   at most ~a^5/10; below `2^-60`, `a C0` alone, evaluated `2^128` times larger so that the
///   pair's low part does not fall into the subnormal range, then scaled back (one rounding);
/// - `|x| >= 1`: `1 - erfc a`, `erfc a = e^(-a^2) erfcx(a)` ([`erfcx64`]), `a^2` an exact pair
///   and the exponential [`exp_neg_half64`] of `2a^2`, the product [`times_exp_pair64`]
///   rounded once (erfc < 0.16 there, so its error is damped six-fold in erf); `a` clamped to
///   6 (erf rounds to 1 from 5.922 on; NaN passes through).
#[inline(always)]
pub fn erf_f64<const F: bool>(x: f64) -> f64 {
    let a = x.abs();
    let (z, zl) = two_prod64::<F>(a, a);
    let (u, ul) = two_prod64::<F>(a, z);
    let q0 = ERF64_Q[11];
    let (p1, e1) = two_prod64::<F>(a, ERF64_C0.0);
    let (p2, e2) = two_prod64::<F>(u, q0);
    let s = p1 + p2;
    let se = (p1 - s) + p2;
    // (z + zl) Q(z + zl) = z Q(z) + zl (Q + z Q') to 2^-110, Q + z Q' ~ q0 + 2 q1 z.
    let dq = fma64::<F>(z, 2.0 * ERF64_Q[10], q0);
    let low = fma64::<F>(a, ERF64_C0.1, (e1 + e2) + se);
    let low = fma64::<F>(fma64::<F>(a, zl, ul), q0, low);
    let low = fma64::<F>(a * zl, dq - q0, low);
    let low = fma64::<F>(u * z, horner64::<F>(z, &ERF64_Q[..11]), low);
    let small = s + low;
    let at = a * pow2i_f64(128);
    let (tp, te) = two_prod64::<F>(at, ERF64_C0.0);
    // Scaled back in two steps so that a subnormal result rounds once: `th` is `tp` rounded
    // to the result's grid, and `rem` (what `th` leaves of the sum, exact but for the low
    // part's rounding) is within ~half a step of it, so `th + rem` rounds as the sum would.
    let th = tp * pow2i_f64(-128);
    let rem = (tp - th * pow2i_f64(128)) + fma64::<F>(at, ERF64_C0.1, te);
    let tiny = th + rem * pow2i_f64(-128);
    let small = if a < pow2i_f64(-60) { tiny } else { small };
    let ac = clamp64(a, 1.0, 6.0);
    let (gh, gl) = erfcx64::<F>(ac);
    let (h, l) = two_prod64::<F>(ac, ac);
    let (n, r, es) = exp_neg_half64::<F>(2.0 * h, 2.0 * l);
    let (eh, el) = times_exp_pair64::<F>(gh, gl, r, es);
    // 2^n >= 2^-53: one exact scale.
    let erfc = (eh + el) * pow2i_f64(n);
    let big = 1.0 - erfc;
    (if a < 1.0 { small } else { big }).copysign(x)
}

/// Below this `|x|` [`gelu_erf_f64`] computes `E`; beyond, `E` underflows to 0 (`e^(-x^2/2)`
/// below 2^-1085), and `x/sqrt 2` stays in [`erfcx64`]'s range.
const GELU64_CLAMP: f64 = 38.8;

/// gelu with erf, `x/2 (1 + erf(x/sqrt 2))`, f64. With `a = |x|` (clamped to
/// [`GELU64_CLAMP`]) and `E(a) = (a/2) erfc(a/sqrt 2) = (a/2) erfcx(y) e^(-a^2/2)`,
/// `y = a/sqrt 2`, gelu is `-E(a)` for negative `x` and `x - E(x)` otherwise:
/// - `y = yh + yl` as an exact product and `1/sqrt 2`'s low part, `erfcx(yh)` from
///   [`erfcx64`] and `yl erfcx'(yh) = yl (2 yh erfcx(yh) - 2/sqrt(pi))` added to its low part
///   (so `y` is never rounded where it matters);
/// - `e^(-a^2/2)` with `a^2` an exact pair ([`exp_neg_half64`]);
/// - `a erfcx` as an exact product plus low part, times the exponential by
///   [`times_exp_pair64`], and scaled by `2^(n-1)` in two factors: for negative `x` the pair
///   is summed first (one rounding, subnormals included); otherwise `x - E` by Fast2Sum
///   (`x >= E`) with `E`'s low part added to the error, so the result rounds ~once.
///
/// As PyTorch's float64 kernel: `gelu(-inf)` is NaN and `gelu(+inf)` is `+inf`.
#[inline(always)]
pub fn gelu_erf_f64<const F: bool>(x: f64) -> f64 {
    let a = clamp64(x.abs(), 0.0, GELU64_CLAMP);
    let (yh, ye) = two_prod64::<F>(a, std::f64::consts::FRAC_1_SQRT_2);
    let yl = fma64::<F>(a, FRAC_1_SQRT_2_LO, ye);
    let (gh, gl) = erfcx64::<F>(yh);
    // (The sum cancels to ~-1/(sqrt(pi) y^2) for large y: gh alone would not do.)
    let dg = fma64::<F>(2.0 * yh, gh + gl, -std::f64::consts::FRAC_2_SQRT_PI);
    let gl = fma64::<F>(yl, dg, gl);
    let (p, pe) = two_prod64::<F>(a, gh);
    let pl = fma64::<F>(a, gl, pe);
    let (h, l) = two_prod64::<F>(a, a);
    let (n, r, s) = exp_neg_half64::<F>(h, l);
    let (eh, el) = times_exp_pair64::<F>(p, pl, r, s);
    let (s1, s2) = pow2i_split_f64(n - 1);
    let neg = -((eh + el) * s1 * s2);
    let (eh, el) = (eh * s1 * s2, el * s1 * s2);
    let d = x - eh;
    let pos = d + (((x - d) - eh) - el);
    // (x = -0 keeps its sign; +inf - 0 would give NaN in the error term.)
    let pos = if x == 0.0 || x == f64::INFINITY {
        x
    } else {
        pos
    };
    let y = if x >= 0.0 { pos } else { neg };
    if x == f64::NEG_INFINITY { f64::NAN } else { y }
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
        TanhFast => tanh_fast_f32, tanh_fast_f64, avx512 tanh_fast_loop;
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

    /// `erf`: [`erf_f32`]; float64 [`erf_f64`] in the FMA flavour and libm's `erf` in the
    /// plain one (on SSE2 the branch-free kernel took 1.7x libm's time: 2.5 against 1.44 ms on
    /// 65,536 elements, one thread, 7 Dec 2026; 0.40 ms on AVX-512, 0.97 on AVX2).
    #[derive(Clone, Copy, Debug)]
    pub struct Erf;
    impl Unary<f32> for Erf {
        #[inline(always)]
        fn eval<const F: bool>(self, x: f32) -> f32 {
            erf_f32::<F>(x)
        }
    }
    impl Unary<f64> for Erf {
        #[inline(always)]
        fn eval<const F: bool>(self, x: f64) -> f64 {
            if F { erf_f64::<true>(x) } else { libm::erf(x) }
        }
    }

    /// gelu with erf (`approximate='none'`): [`gelu_erf_f32`] and [`gelu_erf_f64`] (in both
    /// flavours: libm's `x/2 (1 + erf(x/sqrt2))`, 1.65 ms on 65,536 elements against the plain
    /// kernel's 1.87 on SSE2, loses up to 1,500 ulp to the rounding of `x/sqrt2` at x = -37,
    /// and carrying it would take an `exp` more).
    #[derive(Clone, Copy, Debug)]
    pub struct GeluErf;
    impl Unary<f64> for GeluErf {
        #[inline(always)]
        fn eval<const F: bool>(self, x: f64) -> f64 {
            gelu_erf_f64::<F>(x)
        }
    }
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
