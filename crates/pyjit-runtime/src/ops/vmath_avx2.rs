//! AVX2 + FMA loops for kernels whose portable loop LLVM vectorizes badly: float32 gelu (erf),
//! whose table rows the portable loop fetches with one gather per coefficient (eight per
//! vector). Here each coefficient of the 31-row table comes from four `vpermps` over 8-row
//! quarters and three blends on the row index's bits 3 and 4.
//!
//! As in `vmath_avx512.rs`, each function performs the portable kernel's float operations
//! ([`super::gelu_erf_f32`], FMA flavour) in the same order with the same operands, so results
//! are bit-identical: `avx2_loops_match_the_portable_kernels` checks every 1021st float32 bit
//! pattern. The final `2^n` is the portable two factors (AVX2 has no `vscalefps`).

#![allow(unsafe_op_in_unsafe_fn)]

use super::{
    EXPM1_F32_SHORT, GELU32_COLS, GELU32_NEAR_COLS, GELU32_NEAR_END, GELU32_NEAR_SCALE,
    GELU32_NEAR_WIDTH, LN2_REDUCTION_F32, ROUND32,
};
use std::arch::x86_64::*;

/// Row `idx & 31` of a 32-row column for 8 lanes: `b3`/`b4` hold bit 3/4 of `idx` in the sign
/// bit (what `vblendvps` reads).
#[inline]
#[target_feature(enable = "avx2,fma")]
unsafe fn lookup32(col: &[f32; 32], idx: __m256i, b3: __m256, b4: __m256) -> __m256 {
    let q = |j: usize| _mm256_permutevar8x32_ps(_mm256_loadu_ps(col.as_ptr().add(8 * j)), idx);
    let lo = _mm256_blendv_ps(q(0), q(1), b3);
    let hi = _mm256_blendv_ps(q(2), q(3), b3);
    _mm256_blendv_ps(lo, hi, b4)
}

/// The row `k = round(a * scale)` (ties to even) of a table of local polynomials of width
/// `width` (`1/scale`, exact, with `k * width` exact; the FMA rounds as the portable
/// `fma32(a, scale, ROUND32)`): the index lanes (`k` in the low bits), their bits 3 and 4 in
/// the sign bit (for [`lookup32`]), and `t = a - k * width` (exact).
#[inline]
#[target_feature(enable = "avx2,fma")]
unsafe fn table_row(a: __m256, scale: f32, width: f32) -> (__m256i, __m256, __m256, __m256) {
    let round32 = _mm256_set1_ps(ROUND32);
    let f = _mm256_fmadd_ps(a, _mm256_set1_ps(scale), round32);
    let kf = _mm256_sub_ps(f, round32);
    let idx = _mm256_castps_si256(f);
    let b3 = _mm256_castsi256_ps(_mm256_slli_epi32::<28>(idx));
    let b4 = _mm256_castsi256_ps(_mm256_slli_epi32::<27>(idx));
    let t = _mm256_fnmadd_ps(kf, _mm256_set1_ps(width), a);
    (idx, b3, b4, t)
}

/// Horner's rule, highest coefficient first ([`super::horner32`]).
#[inline]
#[target_feature(enable = "avx2,fma")]
unsafe fn horner(x: __m256, c: &[f32]) -> __m256 {
    let mut p = _mm256_set1_ps(c[0]);
    for &k in &c[1..] {
        p = _mm256_fmadd_ps(p, x, _mm256_set1_ps(k));
    }
    p
}

/// `2^n` for integer lanes `n` in `[-126, 127]` ([`super::pow2i_f32`]).
#[inline]
#[target_feature(enable = "avx2,fma")]
unsafe fn pow2i(n: __m256i) -> __m256 {
    _mm256_castsi256_ps(_mm256_slli_epi32::<23>(_mm256_add_epi32(
        n,
        _mm256_set1_epi32(127),
    )))
}

/// [`super::gelu_erf_f32`] (FMA flavour) on 8 lanes: [`gelu_erf_near`] when every lane is
/// below 5.90625 (the common case), else both forms, selected per lane.
#[inline]
#[target_feature(enable = "avx2,fma")]
unsafe fn gelu_erf(x: __m256) -> __m256 {
    let a = _mm256_and_ps(x, _mm256_castsi256_ps(_mm256_set1_epi32(i32::MAX)));
    let near = _mm256_cmp_ps::<_CMP_LT_OQ>(a, _mm256_set1_ps(GELU32_NEAR_END));
    let y = gelu_erf_near(x);
    if _mm256_movemask_ps(near) == 0xff {
        y
    } else {
        _mm256_blendv_ps(gelu_erf_far(x), y, near)
    }
}

/// [`super::gelu_erf_near32`] (FMA flavour) on 8 lanes.
#[inline]
#[target_feature(enable = "avx2,fma")]
unsafe fn gelu_erf_near(x: __m256) -> __m256 {
    let c = &GELU32_NEAR_COLS;
    let a = _mm256_and_ps(x, _mm256_castsi256_ps(_mm256_set1_epi32(i32::MAX)));
    let (idx, b3, b4, t) = table_row(a, GELU32_NEAR_SCALE, GELU32_NEAR_WIDTH);
    let col = |col: &[f32; 32]| lookup32(col, idx, b3, b4);
    let mut q = col(&c.q[0]);
    for cn in &c.q[1..] {
        q = _mm256_fmadd_ps(q, t, col(cn));
    }
    let gl = _mm256_fmadd_ps(t, q, col(&c.lo));
    let hi = col(&c.hi);
    let p = _mm256_mul_ps(a, hi);
    let pe = _mm256_fmsub_ps(a, hi, p);
    let pl = _mm256_fmadd_ps(a, gl, pe);
    let e = _mm256_add_ps(p, pl);
    let s = _mm256_sub_ps(x, p);
    let err = _mm256_sub_ps(_mm256_sub_ps(x, s), p);
    let pos = _mm256_add_ps(s, _mm256_sub_ps(err, pl));
    let neg_e = _mm256_xor_ps(e, _mm256_castsi256_ps(_mm256_set1_epi32(i32::MIN)));
    // vblendvps reads the sign bit of x: -E where x is negative (-0 included).
    _mm256_blendv_ps(pos, neg_e, x)
}

/// [`super::gelu_erf_far32`] (FMA flavour) on 8 lanes.
// Out of line: a vector with a lane this far out is rare, and inlined into the loop it
// would keep the near form's columns from staying in registers.
#[inline(never)]
#[target_feature(enable = "avx2,fma")]
unsafe fn gelu_erf_far(x: __m256) -> __m256 {
    let c = &GELU32_COLS;
    let rd = LN2_REDUCTION_F32;
    let a = _mm256_and_ps(x, _mm256_castsi256_ps(_mm256_set1_epi32(i32::MAX)));
    // clamp32(|x|, 0, 15): |x| is never below 0, and vminps passes a NaN second operand.
    let a = _mm256_min_ps(_mm256_set1_ps(15.0), a);
    let (idx, b3, b4, t) = table_row(a, 2.0, 0.5);
    let mut q = lookup32(&c.q[0], idx, b3, b4);
    for col in &c.q[1..] {
        q = _mm256_fmadd_ps(q, t, lookup32(col, idx, b3, b4));
    }
    let gl = _mm256_fmadd_ps(t, q, lookup32(&c.lo, idx, b3, b4));
    let hi = lookup32(&c.hi, idx, b3, b4);
    let p = _mm256_mul_ps(a, hi);
    let pe = _mm256_fmsub_ps(a, hi, p);
    let pl = _mm256_fmadd_ps(a, gl, pe);
    let h = _mm256_mul_ps(a, a);
    let l = _mm256_fmsub_ps(a, a, h);
    // exp_neg_half32(h, l)
    let round = _mm256_set1_ps(rd.round);
    let th = _mm256_mul_ps(_mm256_set1_ps(-0.5), h);
    let nf = _mm256_fmadd_ps(th, _mm256_set1_ps(rd.log2e), round);
    let ni = _mm256_sub_epi32(_mm256_castps_si256(nf), _mm256_castps_si256(round));
    let n = _mm256_sub_ps(nf, round);
    let r1 = _mm256_fnmadd_ps(n, _mm256_set1_ps(rd.ln2_hi), th);
    let r = _mm256_fnmadd_ps(n, _mm256_set1_ps(rd.ln2_lo), r1);
    let rl = _mm256_fnmadd_ps(n, _mm256_set1_ps(rd.ln2_lo), _mm256_sub_ps(r1, r));
    let rl = _mm256_sub_ps(rl, _mm256_mul_ps(_mm256_set1_ps(0.5), l));
    let q2 = _mm256_mul_ps(_mm256_mul_ps(r, r), horner(r, &EXPM1_F32_SHORT));
    let s = _mm256_add_ps(q2, _mm256_fmadd_ps(rl, _mm256_add_ps(r, q2), rl));
    // times_exp32(p, pl, r, s)
    let hr = _mm256_mul_ps(p, r);
    let hrl = _mm256_fmsub_ps(p, r, hr);
    let sum = _mm256_add_ps(p, hr);
    let se = _mm256_add_ps(_mm256_sub_ps(p, sum), hr);
    let inner = _mm256_add_ps(_mm256_fmadd_ps(pl, r, pl), _mm256_add_ps(se, hrl));
    let low = _mm256_fmadd_ps(_mm256_add_ps(p, pl), s, inner);
    // scale2_32(sum + low, n): two factors 2^(n >> 1) and 2^(n - (n >> 1)).
    let n1 = _mm256_srai_epi32::<1>(ni);
    let n2 = _mm256_sub_epi32(ni, n1);
    let e = _mm256_mul_ps(_mm256_mul_ps(_mm256_add_ps(sum, low), pow2i(n1)), pow2i(n2));
    let nonneg = _mm256_cmp_ps::<_CMP_GE_OQ>(x, _mm256_setzero_ps());
    let neg_e = _mm256_xor_ps(e, _mm256_castsi256_ps(_mm256_set1_epi32(i32::MIN)));
    let y = _mm256_blendv_ps(neg_e, _mm256_sub_ps(x, e), nonneg);
    let inf = _mm256_cmp_ps::<_CMP_EQ_OQ>(
        _mm256_and_ps(x, _mm256_castsi256_ps(_mm256_set1_epi32(i32::MAX))),
        _mm256_set1_ps(f32::INFINITY),
    );
    _mm256_blendv_ps(y, _mm256_set1_ps(f32::NAN), inf)
}

/// `out[i] = gelu_erf(x[i])` for `i < n`, 8 lanes at a time (the last vector through a copy).
///
/// # Safety
/// The CPU has AVX2 and FMA; `x` and `out` are valid for `n` elements (and may be equal).
#[target_feature(enable = "avx2,fma")]
pub(crate) unsafe fn gelu_erf_loop(x: *const f32, out: *mut f32, n: usize) {
    let mut i = 0;
    while i + 8 <= n {
        let v = _mm256_loadu_ps(x.add(i));
        _mm256_storeu_ps(out.add(i), gelu_erf(v));
        i += 8;
    }
    if i < n {
        let mut buf = [0f32; 8];
        std::ptr::copy_nonoverlapping(x.add(i), buf.as_mut_ptr(), n - i);
        let y = gelu_erf(_mm256_loadu_ps(buf.as_ptr()));
        _mm256_storeu_ps(buf.as_mut_ptr(), y);
        std::ptr::copy_nonoverlapping(buf.as_ptr(), out.add(i), n - i);
    }
}
