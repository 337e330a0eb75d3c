//! AVX-512 loops of the float32 exponential family (`exp`, `sigmoid`, `tanh`, and softmax's
//! `exp(x - m)`), written with intrinsics because one instruction has no portable spelling LLVM
//! would pick: `vscalefps`, which multiplies by `2^n` with one rounding, over- and underflow
//! included. The portable
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

use super::{EXP_F32, LN2_REDUCTION_F32, TANH_F32_POLY, TANH_F32_SMALL};
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
// `exp(x - m)`: softmax's shifted exponential (`reduce::ExpMinus`).
loop32!(exp_minus_loop(m: f32) => |v| exp(_mm512_sub_ps(v, _mm512_set1_ps(m))));
