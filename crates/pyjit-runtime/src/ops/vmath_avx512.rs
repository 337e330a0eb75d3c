//! AVX-512 loops of the float32 exponential family (`exp`, `sigmoid`, `tanh`, softmax's
//! `exp(x - m)`, and gelu (erf)), and of float32 `x ** y` for a fixed exponent
//! (`pow_right_loop`, see its section below), written with intrinsics. For the exponential
//! family, because one instruction has no portable spelling LLVM would pick: `vscalefps`, which
//! multiplies by `2^n` with one rounding, over- and underflow included (and, for gelu's table,
//! `vpermt2ps`, a 32-row lookup for 16 lanes where the portable loop gathers). The portable
//! kernels ([`super::exp_f32`] and its callers) build `2^n` as two float factors from integer
//! bit tricks (eight instructions where `vscalefps` is one) and clamp with compares and blends
//! (four where `vmaxps`/`vminps`, which pass a NaN in their second operand through, are two).
//!
//! Each function here performs exactly the portable kernel's float operations, in the same
//! order with the same operands, so results are bit-identical to [`super::map`]'s AVX2 and
//! AVX-512 flavours for every float32 input:
//! `avx512_loops_match_the_portable_kernels_on_every_float32` (ignored; run in release) checks
//! all 2^32 inputs. Its run of 5 Dec 2026, before NaNs were compared as "any NaN", found the
//! NaN payloads equal too. (Why `y 2^n1 2^(n - n1)` equals `vscalefps(y, n)`: `y` is in
//! `[0.7, 1.42]` and `n >= -150`, so `y 2^n1` is normal and exact, and the second product
//! rounds once, as `vscalefps` does.)
//!
//! The pow loop computes the portable `pow_f32`'s values (the same f64 operations in the same
//! order where a select can act, and provably equal values where the code is shortened: see
//! `pow_positive`), for every base and exponent; `avx512_pow_loop_matches_the_portable_kernel`
//! compares it on every 8191st float32 base and 26 exponents, and the ignored
//! `..._on_every_float32` on all 2^32 bases (about half an hour on two cores).
//!
//! The loops: `exp_loop`, `sigmoid_loop`, `tanh_loop`, `tanh_fast_loop` (fastmath's rational
//! tanh), `exp_minus_loop`, `gelu_erf_loop` (two vectors of 16 float32 lanes per trip; the
//! exponential family's functions take `N` vectors at once, see [`Vs`]), `exp`, `sigmoid`,
//! `tanh` and `tanh_fast` followed by one arithmetic operation
//! (`*_then_loop`, for fused groups: see `loop32_then`) or applied to `x * c` combined with a
//! second value (`*_pre_loop`, `loop32_pre`), and
//! `pow_right_loop` (8 f64 lanes per vector, eight vectors interleaved).

#![allow(unsafe_op_in_unsafe_fn)]

use super::{
    EXP_F32, EXPM1_F32_SHORT, GELU32_COLS, GELU32_NEAR_COLS, GELU32_NEAR_END, GELU32_NEAR_SCALE,
    GELU32_NEAR_WIDTH, LN2_REDUCTION_F32, ROUND32, TANH_F32_CLAMP, TANH_F32_POLY, TANH_F32_SMALL,
    TANH_FAST_F32_CLAMP, TANH_FAST_F32_P, TANH_FAST_F32_Q, ThenKernel,
};
use std::arch::x86_64::*;

/// `-x` (sign flipped, as Rust's `-x`).
#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl,avx2,fma")]
unsafe fn neg(x: __m512) -> __m512 {
    _mm512_castsi512_ps(_mm512_xor_si512(
        _mm512_castps_si512(x),
        _mm512_set1_epi32(i32::MIN),
    ))
}

/// `|x|` (sign cleared, as `f32::abs`).
#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl,avx2,fma")]
unsafe fn abs(x: __m512) -> __m512 {
    _mm512_castsi512_ps(_mm512_and_si512(
        _mm512_castps_si512(x),
        _mm512_set1_epi32(i32::MAX),
    ))
}

/// `m` with the sign of `s` (`f32::copysign`).
#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl,avx2,fma")]
unsafe fn copysign(m: __m512, s: __m512) -> __m512 {
    // Bits of `s` where the mask (0x8000_0000) is set, of `m` elsewhere.
    _mm512_castsi512_ps(_mm512_ternarylogic_epi32::<0xCA>(
        _mm512_set1_epi32(i32::MIN),
        _mm512_castps_si512(s),
        _mm512_castps_si512(m),
    ))
}

/// `N` vectors of 16 lanes, computed step by step together: each function below performs
/// its operations on all `N` before the next operation, so the chains of `N` vectors are
/// interleaved in the instruction stream (a `tanh` is a chain of ~100 cycles of dependent
/// operations). Two vectors per trip made the loops 3-10% faster (docs/kernels.md).
type Vs<const N: usize> = [__m512; N];

/// `[f(0), ..., f(N - 1)]`, unrolled.
macro_rules! each {
    ($i:ident => $e:expr) => {{
        let mut r: [__m512; N] = [_mm512_setzero_ps(); N];
        for $i in 0..N {
            r[$i] = $e;
        }
        r
    }};
}

/// Horner's rule, highest coefficient first ([`super::horner32`]), on `N` vectors.
#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl,avx2,fma")]
unsafe fn horner_n<const N: usize>(x: &Vs<N>, c: &[f32]) -> Vs<N> {
    let mut p = [_mm512_set1_ps(c[0]); N];
    for &k in &c[1..] {
        let kv = _mm512_set1_ps(k);
        for i in 0..N {
            p[i] = _mm512_fmadd_ps(p[i], x[i], kv);
        }
    }
    p
}

/// [`super::reduce_ln2_f32`] (FMA flavour) on `N` vectors: `(n, r)`, `n` as a float.
#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl,avx2,fma")]
unsafe fn reduce_ln2<const N: usize>(x: &Vs<N>) -> (Vs<N>, Vs<N>) {
    let rd = LN2_REDUCTION_F32;
    let round = _mm512_set1_ps(rd.round);
    let nf = each!(i => _mm512_fmadd_ps(x[i], _mm512_set1_ps(rd.log2e), round));
    let n = each!(i => _mm512_sub_ps(nf[i], round));
    let r = each!(i => _mm512_fnmadd_ps(n[i], _mm512_set1_ps(rd.ln2_hi), x[i]));
    let r = each!(i => _mm512_fnmadd_ps(n[i], _mm512_set1_ps(rd.ln2_lo), r[i]));
    (n, r)
}

/// [`super::expm1_poly32`] (FMA flavour) on `N` vectors: `r + r^2 P(r)`.
#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl,avx2,fma")]
unsafe fn expm1_poly<const N: usize>(r: &Vs<N>, c: &[f32]) -> Vs<N> {
    let p = horner_n(r, c);
    let r2 = each!(i => _mm512_mul_ps(r[i], r[i]));
    each!(i => _mm512_fmadd_ps(p[i], r2[i], r[i]))
}

/// [`super::exp_f32`] (FMA flavour) on `N` vectors.
#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl,avx2,fma")]
unsafe fn exp<const N: usize>(x: Vs<N>) -> Vs<N> {
    let c = EXP_F32;
    // clamp32: `x < lo ? lo : (x > hi ? hi : x)`; vminps/vmaxps return their second operand
    // when either is NaN, so a NaN passes as in the selects.
    let (lo, hi) = (_mm512_set1_ps(c.lo), _mm512_set1_ps(c.hi));
    let xc = each!(i => _mm512_max_ps(lo, _mm512_min_ps(hi, x[i])));
    let (n, r) = reduce_ln2(&xc);
    // expm1_poly32 + 1, then `2^n` in one rounding.
    let p = expm1_poly(&r, c.poly);
    let y = each!(i => _mm512_add_ps(p[i], _mm512_set1_ps(1.0)));
    each!(i => _mm512_scalef_ps(y[i], n[i]))
}

/// [`super::sigmoid_f32`] on `N` vectors.
#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl,avx2,fma")]
unsafe fn sigmoid<const N: usize>(x: Vs<N>) -> Vs<N> {
    let one = _mm512_set1_ps(1.0);
    let t = exp(each!(i => neg(abs(x[i]))));
    let num = each!(i => {
        let nonneg = _mm512_cmp_ps_mask::<_CMP_GE_OQ>(x[i], _mm512_setzero_ps());
        _mm512_mask_blend_ps(nonneg, t[i], one)
    });
    let s = each!(i => _mm512_add_ps(one, t[i]));
    let err = each!(i => _mm512_add_ps(_mm512_sub_ps(one, s[i]), t[i]));
    let q = each!(i => _mm512_div_ps(num[i], s[i]));
    let e = each!(i => _mm512_div_ps(err[i], s[i]));
    each!(i => _mm512_fmadd_ps(neg(q[i]), e[i], q[i]))
}

/// [`super::tanh_f32`] on `N` vectors.
#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl,avx2,fma")]
unsafe fn tanh<const N: usize>(x: Vs<N>) -> Vs<N> {
    let a = each!(i => abs(x[i]));
    let z = each!(i => _mm512_mul_ps(x[i], x[i]));
    let h = horner_n(&z, &TANH_F32_POLY);
    let small = each!(i => _mm512_fmadd_ps(_mm512_mul_ps(h[i], z[i]), x[i], x[i]));
    let big = tanh_big(&a);
    each!(i => {
        let is_small = _mm512_cmp_ps_mask::<_CMP_LT_OQ>(a[i], _mm512_set1_ps(TANH_F32_SMALL));
        copysign(_mm512_mask_blend_ps(is_small, big[i], small[i]), x[i])
    })
}

/// [`super::tanh_fast_f32`] (FMA flavour) on `N` vectors: the clamp and the final `min(r, 1)`
/// by `vminps` with the value second, so that a NaN passes as through the selects.
#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl,avx2,fma")]
unsafe fn tanh_fast<const N: usize>(x: Vs<N>) -> Vs<N> {
    let clamp = _mm512_set1_ps(TANH_FAST_F32_CLAMP);
    let a = each!(i => _mm512_min_ps(clamp, abs(x[i])));
    let z = each!(i => _mm512_mul_ps(a[i], a[i]));
    let p = horner_n(&z, &TANH_FAST_F32_P);
    let q = horner_n(&z, &TANH_FAST_F32_Q);
    let one = _mm512_set1_ps(1.0);
    each!(i => {
        let r = _mm512_div_ps(_mm512_mul_ps(a[i], p[i]), q[i]);
        copysign(_mm512_min_ps(one, r), x[i])
    })
}

/// [`super::tanh_big_f32`] (FMA flavour) on `N` vectors (`vscalefps` for `pow2i_f32`: `n` is
/// in `[0, 29]`).
#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl,avx2,fma")]
unsafe fn tanh_big<const N: usize>(a: &Vs<N>) -> Vs<N> {
    let one = _mm512_set1_ps(1.0);
    let two = _mm512_set1_ps(2.0);
    // clamp32(2a, 0, TANH_F32_CLAMP): 2a is never below 0, and vminps passes a NaN second
    // operand.
    let clamp = _mm512_set1_ps(TANH_F32_CLAMP);
    let t = each!(i => _mm512_min_ps(clamp, _mm512_mul_ps(two, a[i])));
    let (n, r) = reduce_ln2(&t);
    let p = expm1_poly(&r, EXP_F32.poly);
    let s = each!(i => _mm512_scalef_ps(one, n[i]));
    let s1 = each!(i => _mm512_add_ps(s[i], one));
    let sp = each!(i => _mm512_mul_ps(s[i], p[i]));
    let d = each!(i => _mm512_add_ps(s1[i], sp[i]));
    let de = each!(i => _mm512_add_ps(_mm512_sub_ps(s1[i], d[i]), sp[i]));
    let q0 = each!(i => _mm512_div_ps(two, d[i]));
    let rem = each!(i => _mm512_fnmadd_ps(q0[i], d[i], two));
    let rem = each!(i => _mm512_fnmadd_ps(q0[i], de[i], rem[i]));
    let half = _mm512_set1_ps(0.5);
    let q = each!(i => _mm512_fmadd_ps(_mm512_mul_ps(rem[i], q0[i]), half, q0[i]));
    each!(i => _mm512_sub_ps(one, q[i]))
}

/// The row `k = round(a * scale)` (ties to even) of a table of local polynomials of width
/// `width` (`1/scale`, exact, with `k * width` exact), in the low bits of the index lanes, and
/// `t = a - k * width` (exact). The FMA rounds as the portable `fma32(a, scale, ROUND32)`.
#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl,avx2,fma")]
unsafe fn table_row(a: __m512, scale: f32, width: f32) -> (__m512i, __m512) {
    let round32 = _mm512_set1_ps(ROUND32);
    let f = _mm512_fmadd_ps(a, _mm512_set1_ps(scale), round32);
    let kf = _mm512_sub_ps(f, round32);
    let t = _mm512_fnmadd_ps(kf, _mm512_set1_ps(width), a);
    (_mm512_castps_si512(f), t)
}

/// Column `col` of a 32-row table, row `idx & 31` per lane (`vpermt2ps`).
#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl,avx2,fma")]
unsafe fn lookup32(col: &[f32; 32], idx: __m512i) -> __m512 {
    let lo = _mm512_loadu_ps(col.as_ptr());
    let hi = _mm512_loadu_ps(col.as_ptr().add(16));
    _mm512_permutex2var_ps(lo, idx, hi)
}

/// [`super::gelu_erf_f32`] (FMA flavour) on 16 lanes: [`gelu_erf_near`] when every lane is
/// below 5.90625 (the common case), else both forms, selected per lane.
#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl,avx2,fma")]
unsafe fn gelu_erf(x: __m512) -> __m512 {
    let a = abs(x);
    let y = gelu_erf_near(x, a);
    let near = _mm512_cmp_ps_mask::<_CMP_LT_OQ>(a, _mm512_set1_ps(GELU32_NEAR_END));
    if near == 0xffff {
        y
    } else {
        _mm512_mask_blend_ps(near, gelu_erf_far(x), y)
    }
}

/// [`super::gelu_erf_near32`] (FMA flavour) on 16 lanes (`a = |x|`), each coefficient of the
/// 32-row table by one `vpermt2ps`. (Before 7 Dec: 48 rows of width 1/8 and degree 6, a
/// `vpermt2ps` and a merged `vpermps` per coefficient: permutes were the loop's bound.)
#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl,avx2,fma")]
unsafe fn gelu_erf_near(x: __m512, a: __m512) -> __m512 {
    let c = &GELU32_NEAR_COLS;
    let (idx, t) = table_row(a, GELU32_NEAR_SCALE, GELU32_NEAR_WIDTH);
    let mut q = lookup32(&c.q[0], idx);
    for col in &c.q[1..] {
        q = _mm512_fmadd_ps(q, t, lookup32(col, idx));
    }
    let gl = _mm512_fmadd_ps(t, q, lookup32(&c.lo, idx));
    let hi = lookup32(&c.hi, idx);
    let p = _mm512_mul_ps(a, hi);
    let pe = _mm512_fmsub_ps(a, hi, p);
    let pl = _mm512_fmadd_ps(a, gl, pe);
    let e = _mm512_add_ps(p, pl);
    let s = _mm512_sub_ps(x, p);
    let err = _mm512_sub_ps(_mm512_sub_ps(x, s), p);
    let pos = _mm512_add_ps(s, _mm512_sub_ps(err, pl));
    let negative = _mm512_movepi32_mask(_mm512_castps_si512(x));
    _mm512_mask_blend_ps(negative, pos, neg(e))
}

/// [`super::gelu_erf_far32`] (FMA flavour) on 16 lanes: the table row by permutes, the rest
/// operation for operation ([`super::exp_neg_half32`], [`super::times_exp32`], and
/// `vscalefps` for [`super::scale2_32`]: where `n != 0`, `a > 0.83`, so the product `m` is at
/// least 0.14, and `n >= -163`).
// Out of line: a vector with a lane this far out is rare, and inlined into the loop it
// would keep the near form's columns from staying in registers.
#[inline(never)]
#[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl,avx2,fma")]
unsafe fn gelu_erf_far(x: __m512) -> __m512 {
    let c = &GELU32_COLS;
    let rd = LN2_REDUCTION_F32;
    // clamp32(|x|, 0, 15): |x| is never below 0, and vminps passes a NaN second operand.
    let a = _mm512_min_ps(_mm512_set1_ps(15.0), abs(x));
    let (idx, t) = table_row(a, 2.0, 0.5);
    let mut q = lookup32(&c.q[0], idx);
    for col in &c.q[1..] {
        q = _mm512_fmadd_ps(q, t, lookup32(col, idx));
    }
    let gl = _mm512_fmadd_ps(t, q, lookup32(&c.lo, idx));
    let hi = lookup32(&c.hi, idx);
    let p = _mm512_mul_ps(a, hi);
    let pe = _mm512_fmsub_ps(a, hi, p);
    let pl = _mm512_fmadd_ps(a, gl, pe);
    let h = _mm512_mul_ps(a, a);
    let l = _mm512_fmsub_ps(a, a, h);
    // exp_neg_half32(h, l)
    let round = _mm512_set1_ps(rd.round);
    let th = _mm512_mul_ps(_mm512_set1_ps(-0.5), h);
    let nf = _mm512_fmadd_ps(th, _mm512_set1_ps(rd.log2e), round);
    let n = _mm512_sub_ps(nf, round);
    let r1 = _mm512_fnmadd_ps(n, _mm512_set1_ps(rd.ln2_hi), th);
    let r = _mm512_fnmadd_ps(n, _mm512_set1_ps(rd.ln2_lo), r1);
    let rl = _mm512_fnmadd_ps(n, _mm512_set1_ps(rd.ln2_lo), _mm512_sub_ps(r1, r));
    let rl = _mm512_sub_ps(rl, _mm512_mul_ps(_mm512_set1_ps(0.5), l));
    let q2 = _mm512_mul_ps(_mm512_mul_ps(r, r), horner_n(&[r], &EXPM1_F32_SHORT)[0]);
    let s = _mm512_add_ps(q2, _mm512_fmadd_ps(rl, _mm512_add_ps(r, q2), rl));
    // times_exp32(p, pl, r, s)
    let hr = _mm512_mul_ps(p, r);
    let hrl = _mm512_fmsub_ps(p, r, hr);
    let sum = _mm512_add_ps(p, hr);
    let se = _mm512_add_ps(_mm512_sub_ps(p, sum), hr);
    let inner = _mm512_add_ps(_mm512_fmadd_ps(pl, r, pl), _mm512_add_ps(se, hrl));
    let low = _mm512_fmadd_ps(_mm512_add_ps(p, pl), s, inner);
    let e = _mm512_scalef_ps(_mm512_add_ps(sum, low), n);
    let nonneg = _mm512_cmp_ps_mask::<_CMP_GE_OQ>(x, _mm512_setzero_ps());
    let y = _mm512_mask_blend_ps(nonneg, neg(e), _mm512_sub_ps(x, e));
    // ±inf (fpclass 0x08 | 0x10) give NaN.
    let inf = _mm512_fpclass_ps_mask::<0x18>(x);
    _mm512_mask_blend_ps(inf, y, _mm512_set1_ps(f32::NAN))
}

/// The loop of one 16-lane function `|v| $body` (more arguments after `n`), with a masked
/// last vector.
macro_rules! loop32 {
    ($name:ident($($arg:ident: $ty:ty),*) => |$v:ident| $body:expr) => {
        /// # Safety
        /// The CPU has AVX-512 F/DQ/BW/VL; `x` and `out` are valid for `n` elements (and may
        /// be equal).
        #[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl,avx2,fma")]
        pub(crate) unsafe fn $name(x: *const f32, out: *mut f32, n: usize $(, $arg: $ty)*) {
            let mut i = 0;
            while i + 32 <= n {
                let $v = [_mm512_loadu_ps(x.add(i)), _mm512_loadu_ps(x.add(i + 16))];
                let r = $body;
                _mm512_storeu_ps(out.add(i), r[0]);
                _mm512_storeu_ps(out.add(i + 16), r[1]);
                i += 32;
            }
            if i + 16 <= n {
                let $v = [_mm512_loadu_ps(x.add(i))];
                _mm512_storeu_ps(out.add(i), $body[0]);
                i += 16;
            }
            if i < n {
                let m: __mmask16 = (1u32 << (n - i)).wrapping_sub(1) as __mmask16;
                let $v = [_mm512_maskz_loadu_ps(m, x.add(i))];
                _mm512_mask_storeu_ps(out.add(i), m, $body[0]);
            }
        }
    };
}

loop32!(exp_loop() => |v| exp(v));
loop32!(sigmoid_loop() => |v| sigmoid(v));
loop32!(tanh_loop() => |v| tanh(v));
loop32!(tanh_fast_loop() => |v| tanh_fast(v));
loop32!(gelu_erf_loop() => |v| {
    let mut u = v;
    for w in &mut u {
        *w = gelu_erf(*w);
    }
    u
});

/// `f OP w` (`w OP f` unless `UL`) for `OP` = [`super::Arith`]`::code`: one IEEE operation,
/// as `vmath::arith`'s kernels perform it.
#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl,avx2,fma")]
unsafe fn arith<const OP: u8, const UL: bool>(f: __m512, w: __m512) -> __m512 {
    let (a, b) = if UL { (f, w) } else { (w, f) };
    match OP {
        0 => _mm512_add_ps(a, b),
        1 => _mm512_sub_ps(a, b),
        2 => _mm512_mul_ps(a, b),
        _ => _mm512_div_ps(a, b),
    }
}

/// The loop of one 16-lane function followed by one arithmetic operation with a second
/// operand (a fused group's step merged with the next, `vmath::map_then`): `out[i] = f(x[i])
/// OP y[i]` (`y[i] OP f(x[i])` unless `UL`), where `y[i]` is `*y.add(i)`, or `*y` for every
/// `i` when `!YS`. The two roundings of the unfused loops, in their order: bit-identical to
/// `map` then `zip`.
macro_rules! loop32_then {
    ($name:ident => |$v:ident| $body:expr) => {
        /// # Safety
        /// The CPU has AVX-512 F/DQ/BW/VL; `x` and `out` are valid for `n` elements, and `y`
        /// for `n` (one when `!YS`); `out` may be `x` or `y`.
        #[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl,avx2,fma")]
        pub(crate) unsafe fn $name<const OP: u8, const UL: bool, const YS: bool>(
            x: *const f32,
            y: *const f32,
            out: *mut f32,
            n: usize,
        ) {
            let one = if YS {
                _mm512_setzero_ps()
            } else {
                _mm512_set1_ps(*y)
            };
            let w = |i: usize| if YS { _mm512_loadu_ps(y.add(i)) } else { one };
            let mut i = 0;
            while i + 32 <= n {
                let $v = [_mm512_loadu_ps(x.add(i)), _mm512_loadu_ps(x.add(i + 16))];
                let r = $body;
                _mm512_storeu_ps(out.add(i), arith::<OP, UL>(r[0], w(i)));
                _mm512_storeu_ps(out.add(i + 16), arith::<OP, UL>(r[1], w(i + 16)));
                i += 32;
            }
            if i + 16 <= n {
                let $v = [_mm512_loadu_ps(x.add(i))];
                _mm512_storeu_ps(out.add(i), arith::<OP, UL>($body[0], w(i)));
                i += 16;
            }
            if i < n {
                let m: __mmask16 = (1u32 << (n - i)).wrapping_sub(1) as __mmask16;
                let $v = [_mm512_maskz_loadu_ps(m, x.add(i))];
                let w = if YS {
                    _mm512_maskz_loadu_ps(m, y.add(i))
                } else {
                    one
                };
                _mm512_mask_storeu_ps(out.add(i), m, arith::<OP, UL>($body[0], w));
            }
        }
    };
}

loop32_then!(exp_then_loop => |v| exp(v));
loop32_then!(sigmoid_then_loop => |v| sigmoid(v));
loop32_then!(tanh_then_loop => |v| tanh(v));
loop32_then!(tanh_fast_then_loop => |v| tanh_fast(v));

/// Calls `$loop::<OP, A, B>` for the runtime `(op, a, b)`: the `*_then_loop`s' `(OP, UL, YS)`
/// and the `*_pre_loop`s' `(OP, CR, SL)`.
macro_rules! dispatch_then {
    ($loop:ident, $op:expr, $a:expr, $b:expr, ($($arg:expr),*)) => {{
        macro_rules! go {
            ($o:literal) => {
                match ($a, $b) {
                    (true, true) => $loop::<$o, true, true>($($arg),*),
                    (true, false) => $loop::<$o, true, false>($($arg),*),
                    (false, true) => $loop::<$o, false, true>($($arg),*),
                    (false, false) => $loop::<$o, false, false>($($arg),*),
                }
            };
        }
        match $op {
            0 => go!(0),
            1 => go!(1),
            2 => go!(2),
            _ => go!(3),
        }
    }};
}

/// The loop of one 16-lane function whose argument is a product by a constant combined with a
/// second value (a fused group's `x * c + y` merged with the function after it,
/// `vmath::scaled_then_map`): `out[i] = f(s OP y[i])` (`f(y[i] OP s)` unless `SL`), `s = x[i]
/// * c` (`c * x[i]` unless `CR`). The roundings of the unfused loops, in their order.
macro_rules! loop32_pre {
    ($name:ident => |$v:ident| $body:expr) => {
        /// # Safety
        /// The CPU has AVX-512 F/DQ/BW/VL; `x`, `y` and `out` are valid for `n` elements;
        /// `out` may be `x` or `y`.
        #[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl,avx2,fma")]
        pub(crate) unsafe fn $name<const OP: u8, const CR: bool, const SL: bool>(
            x: *const f32,
            y: *const f32,
            c: f32,
            out: *mut f32,
            n: usize,
        ) {
            let cv = _mm512_set1_ps(c);
            let arg = |xv: __m512, yv: __m512| {
                let s = if CR {
                    _mm512_mul_ps(xv, cv)
                } else {
                    _mm512_mul_ps(cv, xv)
                };
                arith::<OP, SL>(s, yv)
            };
            let at = |i: usize| arg(_mm512_loadu_ps(x.add(i)), _mm512_loadu_ps(y.add(i)));
            let mut i = 0;
            while i + 32 <= n {
                let $v = [at(i), at(i + 16)];
                let r = $body;
                _mm512_storeu_ps(out.add(i), r[0]);
                _mm512_storeu_ps(out.add(i + 16), r[1]);
                i += 32;
            }
            if i + 16 <= n {
                let $v = [at(i)];
                _mm512_storeu_ps(out.add(i), $body[0]);
                i += 16;
            }
            if i < n {
                let m: __mmask16 = (1u32 << (n - i)).wrapping_sub(1) as __mmask16;
                let $v = [arg(
                    _mm512_maskz_loadu_ps(m, x.add(i)),
                    _mm512_maskz_loadu_ps(m, y.add(i)),
                )];
                _mm512_mask_storeu_ps(out.add(i), m, $body[0]);
            }
        }
    };
}

loop32_pre!(exp_pre_loop => |v| exp(v));
loop32_pre!(sigmoid_pre_loop => |v| sigmoid(v));
loop32_pre!(tanh_pre_loop => |v| tanh(v));
loop32_pre!(tanh_fast_pre_loop => |v| tanh_fast(v));

/// The `*_pre_loop` of the exponential-family kernel `f` (see [`loop32_pre`]).
///
/// # Safety
/// As the loops'.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn pre_loop(
    f: ThenKernel,
    op: u8,
    c_right: bool,
    scaled_left: bool,
    x: *const f32,
    y: *const f32,
    c: f32,
    out: *mut f32,
    n: usize,
) {
    match f {
        ThenKernel::Exp => {
            dispatch_then!(exp_pre_loop, op, c_right, scaled_left, (x, y, c, out, n))
        }
        ThenKernel::Sigmoid => {
            dispatch_then!(
                sigmoid_pre_loop,
                op,
                c_right,
                scaled_left,
                (x, y, c, out, n)
            )
        }
        ThenKernel::Tanh => {
            dispatch_then!(tanh_pre_loop, op, c_right, scaled_left, (x, y, c, out, n))
        }
        ThenKernel::TanhFast => dispatch_then!(
            tanh_fast_pre_loop,
            op,
            c_right,
            scaled_left,
            (x, y, c, out, n)
        ),
    }
}

/// The `*_then_loop` of the exponential-family kernel `f` (see [`loop32_then`]).
///
/// # Safety
/// As the loops'.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn then_loop(
    f: ThenKernel,
    op: u8,
    un_left: bool,
    y_slice: bool,
    x: *const f32,
    y: *const f32,
    out: *mut f32,
    n: usize,
) {
    match f {
        ThenKernel::Exp => dispatch_then!(exp_then_loop, op, un_left, y_slice, (x, y, out, n)),
        ThenKernel::Sigmoid => {
            dispatch_then!(sigmoid_then_loop, op, un_left, y_slice, (x, y, out, n))
        }
        ThenKernel::Tanh => dispatch_then!(tanh_then_loop, op, un_left, y_slice, (x, y, out, n)),
        ThenKernel::TanhFast => {
            dispatch_then!(tanh_fast_then_loop, op, un_left, y_slice, (x, y, out, n))
        }
    }
}
// `exp(x - m)`: softmax's shifted exponential (`Minus(k::Exp, m)`).
loop32!(exp_minus_loop(m: f32) => |v| {
    let mut u = v;
    for w in &mut u {
        *w = _mm512_sub_ps(*w, _mm512_set1_ps(m));
    }
    exp(u)
});

// ------------------------------------------------------------------------------ pow
//
// `x ** y` for a fixed float32 `y` (`Right(k::Pow, y)`: `pow_scalar`, `x ** 1.5`), the portable
// `pow_f32` (f64 `e^(y ln|x|)`, one rounding to float32) on 8 f64 lanes. The `eval` loop of it
// was slow for two reasons other than its operation count, both seen in its machine code: one
// chain is ~100 dependent instructions (a division, two polynomials), and Zen 4's scheduler
// held little more than one iteration, so the loop ran at its latency; and every special case
// (the log's zero/NaN/inf, the sign of odd powers, NaN for negative bases, `x == 1`) cost
// compares and blends on every vector. Here eight chains (64 inputs) are interleaved step by
// step, and a block whose inputs are all positive normal float32 (with a finite `y`) takes
// `pow_positive`, which leaves out the selects that cannot act and computes the log's `2^k m`
// split on the float32 bits; every other block takes `pow_pd`, the full translation. Both give
// the `eval` loop's bits (`avx512_pow_loop_matches_the_portable_kernel`).

/// `[$e; N]` with `$i` running over the lanes (`N` f64 vectors, or f32 vectors after `ps`): one
/// step of `N` independent computations, written next to each other so that the out-of-order
/// core always has independent work (one chain of `pow` is ~100 dependent instructions).
macro_rules! each {
    ($n:expr, |$i:ident| $e:expr) => {
        each!(@ _mm512_setzero_pd(), $n, |$i| $e)
    };
    (ps $n:expr, |$i:ident| $e:expr) => {
        each!(@ _mm512_setzero_ps(), $n, |$i| $e)
    };
    (si $n:expr, |$i:ident| $e:expr) => {
        each!(@ _mm512_setzero_si512(), $n, |$i| $e)
    };
    (@ $zero:expr, $n:expr, |$i:ident| $e:expr) => {{
        let mut out = [$zero; $n];
        for $i in 0..$n {
            out[$i] = $e;
        }
        out
    }};
}

// The helpers of the pow loop are `#[inline(always)]` without target features of their own
// (which `#[inline(always)]` does not allow): they are only ever inlined into
// `pow_right_loop`, whose features the intrinsics then inline with. A plain `#[inline]` left
// the largest ones (with their arrays of vectors on the stack) out of line.

/// Horner's rule on 8 f64 lanes ([`super::horner64`], FMA flavour).
#[inline(always)]
unsafe fn horner_pd(x: __m512d, c: &[f64]) -> __m512d {
    let mut p = _mm512_set1_pd(c[0]);
    for &k in &c[1..] {
        p = _mm512_fmadd_pd(p, x, _mm512_set1_pd(k));
    }
    p
}

/// The low (`i` even) or high half of `a`.
#[inline(always)]
unsafe fn half(a: __m512, i: usize) -> __m256 {
    if i.is_multiple_of(2) {
        _mm512_castps512_ps256(a)
    } else {
        _mm512_extractf32x8_ps::<1>(a)
    }
}

/// What [`super::pow_f32`] decides from its exponent alone, for a fixed `y`.
#[derive(Clone, Copy)]
struct PowY {
    yd: f64,
    /// `y == 2`: the exact square.
    square: bool,
    /// `y` is an integer / an odd integer ([`super::trig::int_parity`]).
    is_int: bool,
    odd: bool,
    infinite: bool,
    zero: bool,
    finite: bool,
    /// `|y ln x| <= 200` for every finite nonzero float32 `x` (`|ln x| < 104`): the clamp of
    /// [`super::exp_for_f32`] never changes `t`.
    no_clamp: bool,
}

impl PowY {
    fn new(y: f32) -> Self {
        let yd = y as f64;
        let (is_int, odd) = super::trig::int_parity(yd);
        PowY {
            yd,
            square: yd == 2.0,
            is_int,
            odd,
            infinite: yd.is_infinite(),
            zero: yd == 0.0,
            finite: yd.is_finite(),
            no_clamp: yd.abs() * 104.0 <= super::EXP_FOR_F32_MAX,
        }
    }
}

/// `ln x` from `x`'s parts `(dk, f)` ([`super::log_from_parts_f64`] before its special values,
/// with [`super::log1p_core_f64`]).
#[inline(always)]
unsafe fn log_from_parts_pd<const N: usize>(dk: [__m512d; N], f: [__m512d; N]) -> [__m512d; N] {
    use super::{LOG_LG_F64 as LG, LOG_LN2_HI_F64, LOG_LN2_LO_F64};
    let s = each!(N, |i| _mm512_div_pd(
        f[i],
        _mm512_add_pd(_mm512_set1_pd(2.0), f[i])
    ));
    let z = each!(N, |i| _mm512_mul_pd(s[i], s[i]));
    let w = each!(N, |i| _mm512_mul_pd(z[i], z[i]));
    let t1 = each!(N, |i| _mm512_mul_pd(
        w[i],
        horner_pd(w[i], &[LG[5], LG[3], LG[1]])
    ));
    let t2 = each!(N, |i| _mm512_mul_pd(
        z[i],
        horner_pd(w[i], &[LG[6], LG[4], LG[2], LG[0]])
    ));
    let hfsq = each!(N, |i| _mm512_mul_pd(
        _mm512_mul_pd(_mm512_set1_pd(0.5), f[i]),
        f[i]
    ));
    let core = each!(N, |i| _mm512_sub_pd(
        _mm512_fmadd_pd(
            s[i],
            _mm512_add_pd(hfsq[i], _mm512_add_pd(t2[i], t1[i])),
            _mm512_mul_pd(dk[i], _mm512_set1_pd(LOG_LN2_LO_F64))
        ),
        hfsq[i]
    ));
    each!(N, |i| _mm512_fmadd_pd(
        dk[i],
        _mm512_set1_pd(LOG_LN2_HI_F64),
        _mm512_add_pd(core[i], f[i])
    ))
}

/// `(nf, n, 1 + p)` of [`super::exp_for_f32`] at `t` (already clamped): `reduce_ln2_f64`'s
/// `nf = t log2e + round` and `n = nf - round`, and `e^r = 1 + p` of the reduced argument;
/// `e^t = (1 + p) 2^n`.
#[inline(always)]
unsafe fn exp_parts_pd<const N: usize>(
    t: [__m512d; N],
) -> ([__m512d; N], [__m512d; N], [__m512d; N]) {
    let rd = super::LN2_REDUCTION_F64;
    let round = _mm512_set1_pd(rd.round);
    let nf = each!(N, |i| _mm512_fmadd_pd(
        t[i],
        _mm512_set1_pd(rd.log2e),
        round
    ));
    let n = each!(N, |i| _mm512_sub_pd(nf[i], round));
    let r = each!(N, |i| _mm512_fnmadd_pd(
        n[i],
        _mm512_set1_pd(rd.ln2_hi),
        t[i]
    ));
    let r = each!(N, |i| _mm512_fnmadd_pd(
        n[i],
        _mm512_set1_pd(rd.ln2_lo),
        r[i]
    ));
    let e = each!(N, |i| _mm512_add_pd(
        _mm512_set1_pd(1.0),
        _mm512_fmadd_pd(
            horner_pd(r[i], &super::EXP_FOR_F32_POLY),
            _mm512_mul_pd(r[i], r[i]),
            r[i]
        )
    ));
    (nf, n, e)
}

/// `y ln x` clamped to `±200` (vminpd/vmaxpd pass a NaN in their second operand, as the
/// portable selects do), unless `y` is small enough that the clamp never acts.
#[inline(always)]
unsafe fn clamped_product_pd<const N: usize>(l: [__m512d; N], y: PowY) -> [__m512d; N] {
    let t = each!(N, |i| _mm512_mul_pd(_mm512_set1_pd(y.yd), l[i]));
    if y.no_clamp {
        return t;
    }
    let max = super::EXP_FOR_F32_MAX;
    each!(N, |i| _mm512_max_pd(
        _mm512_set1_pd(-max),
        _mm512_min_pd(_mm512_set1_pd(max), t[i])
    ))
}

/// [`super::pow_f32`] (FMA flavour) on `N` vectors of 8 float32 inputs widened to f64, for the
/// fixed exponent `y`, every input: the same f64 operations in the same order (the log of
/// [`super::log_of_f32_f64`] with its special values, the exponential of
/// [`super::exp_for_f32`], the special-case selects), `N` chains interleaved step by step. The
/// selects that depend on `y` alone are branches on `y`'s [`PowY`]; `(1 + p) 2^n` is
/// `vscalefpd` (exact, as the portable product of `1 + p` in `[0.7, 1.42]` and `2^n`,
/// `|n| <= 289`, is; a NaN `1 + p` stays that NaN).
#[inline(always)]
unsafe fn pow_pd<const N: usize>(xd: [__m512d; N], y: PowY) -> [__m512d; N] {
    use super::{LOG_OFFSET_F64, LOG_SQRT_HALF_F64};
    let one = _mm512_set1_pd(1.0);
    let ax = each!(N, |i| _mm512_abs_pd(xd[i]));
    let r = if y.square {
        each!(N, |i| _mm512_mul_pd(xd[i], xd[i]))
    } else {
        // log_parts_normal_f64
        let ix = each!(si N, |i| _mm512_add_epi64(
            _mm512_castpd_si512(ax[i]),
            _mm512_set1_epi64(LOG_OFFSET_F64 as i64)
        ));
        let dk = each!(N, |i| _mm512_cvtepi64_pd(_mm512_sub_epi64(
            _mm512_srli_epi64::<52>(ix[i]),
            _mm512_set1_epi64(0x3ff)
        )));
        let f = each!(N, |i| _mm512_sub_pd(
            _mm512_castsi512_pd(_mm512_add_epi64(
                _mm512_and_si512(ix[i], _mm512_set1_epi64(0x000f_ffff_ffff_ffff)),
                _mm512_set1_epi64(LOG_SQRT_HALF_F64 as i64)
            )),
            one
        ));
        let l = log_from_parts_pd(dk, f);
        // special_log (exclusive cases: zero, NaN (`|x|` is never negative), +inf)
        let l = each!(N, |i| {
            let a = ax[i];
            let l = _mm512_mask_blend_pd(
                _mm512_cmp_pd_mask::<_CMP_EQ_OQ>(a, _mm512_set1_pd(f64::INFINITY)),
                l[i],
                a,
            );
            let l = _mm512_mask_blend_pd(
                _mm512_cmp_pd_mask::<_CMP_UNORD_Q>(a, a),
                l,
                _mm512_set1_pd(f64::NAN),
            );
            _mm512_mask_blend_pd(
                _mm512_cmp_pd_mask::<_CMP_EQ_OQ>(a, _mm512_setzero_pd()),
                l,
                _mm512_set1_pd(f64::NEG_INFINITY),
            )
        });
        let (_, n, e) = exp_parts_pd(clamped_product_pd(l, y));
        each!(N, |i| _mm512_scalef_pd(e[i], n[i]))
    };
    each!(N, |i| {
        let (x, a) = (xd[i], ax[i]);
        let mut r = r[i];
        if y.odd {
            // -r where x's sign bit is set
            let neg = _mm512_movepi64_mask(_mm512_castpd_si512(x));
            r = _mm512_mask_xor_pd(r, neg, r, _mm512_set1_pd(-0.0));
        }
        if !y.is_int {
            // NaN for finite negative x
            let neg = _mm512_cmp_pd_mask::<_CMP_LT_OQ>(x, _mm512_setzero_pd())
                & _mm512_cmp_pd_mask::<_CMP_GT_OQ>(x, _mm512_set1_pd(f64::NEG_INFINITY));
            r = _mm512_mask_blend_pd(neg, r, _mm512_set1_pd(f64::NAN));
        }
        if y.infinite {
            r = _mm512_mask_blend_pd(_mm512_cmp_pd_mask::<_CMP_EQ_OQ>(a, one), r, one);
        }
        if y.zero {
            one
        } else {
            _mm512_mask_blend_pd(_mm512_cmp_pd_mask::<_CMP_EQ_OQ>(x, one), r, one)
        }
    })
}

/// [`pow_pd`] for positive normal float32 `x` and finite `y` (not 2): none of the selects acts
/// (`ln x` is finite, so is `t = y ln x`; at `x = 1`, `ln x = +0`, `t = ±0` and the exponential
/// is exactly 1, as selected; at `y = 0`, `t = ±0` as well), and the same values are computed
/// more cheaply:
/// - `log_parts_normal_f64` on the float32 bits, 16 lanes per instruction: for a normal
///   float32, `x = 2^k m` with `m` in `[sqrt(1/2), sqrt(2))` splits at the same mantissa
///   (`0x3f35_04f0` is the float32 whose widening has the high word `0x3fe6_a09e` and a zero
///   low word), the float32 `m` widens to the f64 `m`, and `m - 1` is exact in both;
/// - `(1 + p) 2^n` as an integer addition of `n << 52` to the bits of `1 + p` (normal, and
///   `2^n (1 + p)` is normal for `|n| <= 289`), where `n << 52` is `nf`'s bits shifted (the
///   low 12 bits of `round`'s are zero); two integer instructions instead of `vscalefpd`,
///   which takes two cycles per vector on Zen 4;
/// - no clamp where `y` is too small for it to act ([`PowY::no_clamp`]).
#[inline(always)]
unsafe fn pow_positive<const G: usize, const N: usize>(v: [__m512; G], y: PowY) -> [__m512; G] {
    const OFFSET: i32 = 0x3f80_0000 - 0x3f35_04f0;
    const _: () = assert!(
        (OFFSET as u64) << 29 == super::LOG_OFFSET_F64
            && 0x3f35_04f0u64 << 29 == super::LOG_SQRT_HALF_F64 - (0x380u64 << 52)
    );
    let ix = each!(ps G, |j| _mm512_castsi512_ps(_mm512_add_epi32(
        _mm512_castps_si512(v[j]),
        _mm512_set1_epi32(OFFSET)
    )));
    let k = each!(ps G, |j| _mm512_castsi512_ps(_mm512_sub_epi32(
        _mm512_srli_epi32::<23>(_mm512_castps_si512(ix[j])),
        _mm512_set1_epi32(0x7f)
    )));
    let f = each!(ps G, |j| _mm512_sub_ps(
        _mm512_castsi512_ps(_mm512_add_epi32(
            _mm512_and_si512(_mm512_castps_si512(ix[j]), _mm512_set1_epi32(0x007f_ffff)),
            _mm512_set1_epi32(0x3f35_04f0)
        )),
        _mm512_set1_ps(1.0)
    ));
    let dk = each!(N, |i| _mm512_cvtepi32_pd(_mm256_castps_si256(half(
        k[i / 2],
        i
    ))));
    let f = each!(N, |i| _mm512_cvtps_pd(half(f[i / 2], i)));
    let l = log_from_parts_pd(dk, f);
    let (nf, _, e) = exp_parts_pd(clamped_product_pd(l, y));
    let r = each!(N, |i| _mm512_castsi512_pd(_mm512_add_epi64(
        _mm512_castpd_si512(e[i]),
        _mm512_slli_epi64::<52>(_mm512_castpd_si512(nf[i]))
    )));
    each!(ps G, |j| _mm512_insertf32x8::<1>(
        _mm512_castps256_ps512(_mm512_cvtpd_ps(r[2 * j])),
        _mm512_cvtpd_ps(r[2 * j + 1])
    ))
}

/// `G` vectors of 16 float32 (`x` at `16 j`, lanes of `m[j]`) to the power `y`, `N = 2 G` f64
/// chains: [`pow_positive`] when every input is a positive normal float32 and `y` is finite
/// and not 2, else [`pow_pd`].
#[inline(always)]
unsafe fn pow_block<const G: usize, const N: usize>(
    x: *const f32,
    out: *mut f32,
    m: [__mmask16; G],
    y: PowY,
) {
    let v = each!(ps G, |j| _mm512_maskz_loadu_ps(m[j], x.add(16 * j)));
    let mut plain = y.finite && !y.square;
    for j in 0..G {
        // bits - MIN_POSITIVE's below MAX's - MIN_POSITIVE's (unsigned)
        let normal = _mm512_cmplt_epu32_mask(
            _mm512_sub_epi32(_mm512_castps_si512(v[j]), _mm512_set1_epi32(0x0080_0000)),
            _mm512_set1_epi32(0x7f00_0000),
        );
        plain &= normal & m[j] == m[j];
    }
    let res = if plain {
        pow_positive::<G, N>(v, y)
    } else {
        let xd = each!(N, |i| _mm512_cvtps_pd(half(v[i / 2], i)));
        let r = pow_pd::<N>(xd, y);
        each!(ps G, |j| _mm512_insertf32x8::<1>(
            _mm512_castps256_ps512(_mm512_cvtpd_ps(r[2 * j])),
            _mm512_cvtpd_ps(r[2 * j + 1])
        ))
    };
    for j in 0..G {
        _mm512_mask_storeu_ps(out.add(16 * j), m[j], res[j]);
    }
}

/// `out[i] = pow(x[i], y)` ([`super::pow_f32`], FMA flavour; `Right(Pow, y)`), 64 inputs (eight
/// f64 vectors) per iteration, the last block masked.
///
/// # Safety
/// The CPU has AVX-512 F/DQ/BW/VL; `x` and `out` are valid for `n` elements (and may be equal).
#[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl,avx2,fma")]
pub(crate) unsafe fn pow_right_loop(x: *const f32, out: *mut f32, n: usize, y: f32) {
    const G: usize = 4;
    let y = PowY::new(y);
    let mut i = 0;
    while i + 16 * G <= n {
        pow_block::<G, { 2 * G }>(x.add(i), out.add(i), [!0; G], y);
        i += 16 * G;
    }
    if i < n {
        let mut m = [0 as __mmask16; G];
        for (j, mj) in m.iter_mut().enumerate() {
            let left = (n - i).saturating_sub(16 * j).min(16);
            *mj = ((1u32 << left) - 1) as __mmask16;
        }
        pow_block::<G, { 2 * G }>(x.add(i), out.add(i), m, y);
    }
}
