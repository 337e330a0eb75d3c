//! AVX-512 loops of the float32 exponential family (`exp`, `sigmoid`, `tanh`, softmax's
//! `exp(x - m)`, and gelu (erf)), written with intrinsics because one instruction has no portable
//! spelling LLVM would pick: `vscalefps`, which multiplies by `2^n` with one rounding, over- and
//! underflow included (and, for gelu's table, `vpermt2ps`, a 32-row lookup for 16 lanes where
//! the portable loop gathers). The portable
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

#![allow(unsafe_op_in_unsafe_fn)]

use super::{
    EXP_F32, EXPM1_F32_SHORT, GELU32_COLS, LN2_REDUCTION_F32, ROUND32, TANH_F32_POLY,
    TANH_F32_SMALL,
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

/// Horner's rule, highest coefficient first ([`super::horner32`]).
#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl,avx2,fma")]
unsafe fn horner(x: __m512, c: &[f32]) -> __m512 {
    let mut p = _mm512_set1_ps(c[0]);
    for &k in &c[1..] {
        p = _mm512_fmadd_ps(p, x, _mm512_set1_ps(k));
    }
    p
}

/// [`super::exp_f32`] (FMA flavour) on 16 lanes.
#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl,avx2,fma")]
unsafe fn exp(x: __m512) -> __m512 {
    let c = EXP_F32;
    let rd = LN2_REDUCTION_F32;
    // clamp32: `x < lo ? lo : (x > hi ? hi : x)`; vminps/vmaxps return their second operand
    // when either is NaN, so a NaN passes as in the selects.
    let xc = _mm512_max_ps(_mm512_set1_ps(c.lo), _mm512_min_ps(_mm512_set1_ps(c.hi), x));
    // reduce_ln2_f32
    let round = _mm512_set1_ps(rd.round);
    let nf = _mm512_fmadd_ps(xc, _mm512_set1_ps(rd.log2e), round);
    let n = _mm512_sub_ps(nf, round);
    let r = _mm512_fnmadd_ps(n, _mm512_set1_ps(rd.ln2_hi), xc);
    let r = _mm512_fnmadd_ps(n, _mm512_set1_ps(rd.ln2_lo), r);
    // expm1_poly32 + 1, then `2^n` in one rounding.
    let p = _mm512_fmadd_ps(horner(r, c.poly), _mm512_mul_ps(r, r), r);
    let y = _mm512_add_ps(p, _mm512_set1_ps(1.0));
    _mm512_scalef_ps(y, n)
}

/// [`super::sigmoid_f32`] on 16 lanes.
#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl,avx2,fma")]
unsafe fn sigmoid(x: __m512) -> __m512 {
    let one = _mm512_set1_ps(1.0);
    let t = exp(neg(abs(x)));
    let nonneg = _mm512_cmp_ps_mask::<_CMP_GE_OQ>(x, _mm512_setzero_ps());
    let num = _mm512_mask_blend_ps(nonneg, t, one);
    let s = _mm512_add_ps(one, t);
    let err = _mm512_add_ps(_mm512_sub_ps(one, s), t);
    let q = _mm512_div_ps(num, s);
    _mm512_fmadd_ps(neg(q), _mm512_div_ps(err, s), q)
}

/// [`super::tanh_f32`] on 16 lanes.
#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl,avx2,fma")]
unsafe fn tanh(x: __m512) -> __m512 {
    let one = _mm512_set1_ps(1.0);
    let two = _mm512_set1_ps(2.0);
    let a = abs(x);
    let z = _mm512_mul_ps(x, x);
    let small = _mm512_fmadd_ps(_mm512_mul_ps(horner(z, &TANH_F32_POLY), z), x, x);
    let e = exp(_mm512_mul_ps(two, a));
    let big = _mm512_sub_ps(one, _mm512_div_ps(two, _mm512_add_ps(e, one)));
    let is_small = _mm512_cmp_ps_mask::<_CMP_LT_OQ>(a, _mm512_set1_ps(TANH_F32_SMALL));
    copysign(_mm512_mask_blend_ps(is_small, big, small), x)
}

/// Column `col` of a 32-row table, row `idx & 31` per lane (`vpermt2ps`).
#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl,avx2,fma")]
unsafe fn lookup32(col: &[f32; 32], idx: __m512i) -> __m512 {
    let lo = _mm512_loadu_ps(col.as_ptr());
    let hi = _mm512_loadu_ps(col.as_ptr().add(16));
    _mm512_permutex2var_ps(lo, idx, hi)
}

/// [`super::gelu_erf_f32`] (FMA flavour) on 16 lanes: the table row by permutes, the rest
/// operation for operation ([`super::exp_neg_half32`], [`super::times_exp32`], and
/// `vscalefps` for [`super::scale2_32`]: where `n != 0`, `a > 0.83`, so the product `m` is at
/// least 0.14, and `n >= -163`).
#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl,avx2,fma")]
unsafe fn gelu_erf(x: __m512) -> __m512 {
    let c = &GELU32_COLS;
    let rd = LN2_REDUCTION_F32;
    // clamp32(|x|, 0, 15): |x| is never below 0, and vminps passes a NaN second operand.
    let a = _mm512_min_ps(_mm512_set1_ps(15.0), abs(x));
    let round32 = _mm512_set1_ps(ROUND32);
    let f = _mm512_fmadd_ps(a, _mm512_set1_ps(2.0), round32);
    let kf = _mm512_sub_ps(f, round32);
    let idx = _mm512_castps_si512(f);
    let t = _mm512_fnmadd_ps(kf, _mm512_set1_ps(0.5), a);
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
    let q2 = _mm512_mul_ps(_mm512_mul_ps(r, r), horner(r, &EXPM1_F32_SHORT));
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
            while i + 16 <= n {
                let $v = _mm512_loadu_ps(x.add(i));
                _mm512_storeu_ps(out.add(i), $body);
                i += 16;
            }
            if i < n {
                let m: __mmask16 = (1u32 << (n - i)).wrapping_sub(1) as __mmask16;
                let $v = _mm512_maskz_loadu_ps(m, x.add(i));
                _mm512_mask_storeu_ps(out.add(i), m, $body);
            }
        }
    };
}

loop32!(exp_loop() => |v| exp(v));
loop32!(sigmoid_loop() => |v| sigmoid(v));
loop32!(tanh_loop() => |v| tanh(v));
loop32!(gelu_erf_loop() => |v| gelu_erf(v));
// `exp(x - m)`: softmax's shifted exponential (`reduce::ExpMinus`).
loop32!(exp_minus_loop(m: f32) => |v| exp(_mm512_sub_ps(v, _mm512_set1_ps(m))));
