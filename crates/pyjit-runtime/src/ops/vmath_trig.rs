//! Trigonometric, inverse trigonometric and hyperbolic functions, `atan2` and `pow`,
//! written like the rest of [`vmath`](super): branch-free scalar code (both sides of every
//! choice computed, then selected) that the dispatched loops vectorize. The float32 functions
//! evaluate the float64 formulas and round once at the end.
//!
//! sin/cos/tan reduce by `n pi/2` with `pi/2` split into three 33-bit pieces and a tail (fdlibm's
//! medium-size scheme, exact products for `|n| < 2^20`): arguments beyond [`TRIG_MAX`] take the
//! scalar slow path ([`Unary::slow`], glibc's Payne-Hanek reduction) after the vector loop.
//! The inverse functions use fdlibm's rational and polynomial approximations (asin/acos: `R(z)`
//! with the `sqrt((1-|x|)/2)` identities; atan: the four breakpoints 0.5, 1, 1.5, inf), the
//! hyperbolic functions `expm1`/`exp` with a Taylor polynomial near 0. float64 `pow` carries its
//! logarithm as a double-double from a table and rounds `e^` of the pair once ([`pow_f64`]).

use super::{
    EXP_F64, ROUND64, exp_f64, expm1_f64, expm1_poly64, fma64, horner64, pow2i_f64, reduce_ln2_f64,
};

/// Largest `|x|` the vector sin/cos/tan reduce (`n = round(x 2/pi) < 2^20`, so every product
/// `n * PIO2_k` below is exact); larger finite arguments take the slow path.
pub const TRIG_MAX: f64 = 1.0e6;

// pi/2 = PIO2_1 + PIO2_2 + PIO2_3 + PIO2_3T, the first three with 33 significant bits.
const PIO2_1: f64 = 1.570_796_326_734_125_6;
const PIO2_2: f64 = 6.077_100_506_303_966e-11;
const PIO2_3: f64 = 2.022_266_248_711_166_5e-21;
const PIO2_3T: f64 = 8.478_427_660_368_9e-32;
const TWO_OVER_PI: f64 = std::f64::consts::FRAC_2_PI;

#[inline(always)]
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// `(n, hi, lo)` with `x = n pi/2 + hi + lo`, `|hi| <~ pi/4`, for `|x| <= TRIG_MAX` (others are
/// clamped: the caller selects NaN for infinities, the slow path fixes large finite values).
#[inline(always)]
fn rem_pio2<const F: bool>(x: f64) -> (i64, f64, f64) {
    let xc = super::clamp64(x, -TRIG_MAX, TRIG_MAX);
    let nf = fma64::<F>(xc, TWO_OVER_PI, ROUND64);
    let ni = (nf.to_bits() as i64).wrapping_sub(ROUND64.to_bits() as i64);
    let n = nf - ROUND64;
    // n * PIO2_1 has at most 53 bits and xc - n * PIO2_1 is a multiple of 2^-53 below 1: exact.
    let r1 = xc - n * PIO2_1;
    let (r2, e2) = two_sum(r1, -(n * PIO2_2));
    let (r3, e3) = two_sum(r2, -(n * PIO2_3));
    let lo = (e2 + e3) - n * PIO2_3T;
    let hi = r3 + lo;
    (ni, hi, lo - (hi - r3))
}

// Taylor coefficients: truncation below 2^-62 relative on |x| <= pi/4.
const SIN_P: [f64; 7] = [
    1.0 / 355_687_428_096_000.0,
    -1.0 / 1_307_674_368_000.0,
    1.0 / 6_227_020_800.0,
    -1.0 / 39_916_800.0,
    1.0 / 362_880.0,
    -1.0 / 5_040.0,
    1.0 / 120.0,
];
const COS_P: [f64; 8] = [
    -1.0 / 6_402_373_705_728_000.0,
    1.0 / 20_922_789_888_000.0,
    -1.0 / 87_178_291_200.0,
    1.0 / 479_001_600.0,
    -1.0 / 3_628_800.0,
    1.0 / 40_320.0,
    -1.0 / 720.0,
    1.0 / 24.0,
];

/// `sin(x + y)` for `|x| <~ pi/4`, `|y| < ulp(x)` (fdlibm's __kernel_sin arrangement).
#[inline(always)]
fn ksin<const F: bool>(x: f64, y: f64) -> f64 {
    ksin_pair::<F>(x, y).0
}

/// [`ksin`] as `hi + lo`: `hi` its value, `lo` the rounding error of its last subtraction
/// (Fast2Sum: the subtracted term is below `|x|/10`).
#[inline(always)]
fn ksin_pair<const F: bool>(x: f64, y: f64) -> (f64, f64) {
    let z = x * x;
    let v = z * x;
    let r = horner64::<F>(z, &SIN_P);
    let t = (z * (0.5 * y - v * r) - y) - v * (-1.0 / 6.0);
    let hi = x - t;
    (hi, (x - hi) - t)
}

/// `cos(x + y)` (fdlibm's __kernel_cos: `1 - z/2` with its rounding error fed back).
#[inline(always)]
fn kcos<const F: bool>(x: f64, y: f64) -> f64 {
    kcos_pair::<F>(x, y).0
}

/// [`kcos`] as `hi + lo`, `lo` the rounding error of its last addition (Fast2Sum: `w >= 0.69`
/// and the added term is small).
#[inline(always)]
fn kcos_pair<const F: bool>(x: f64, y: f64) -> (f64, f64) {
    let z = x * x;
    let r = z * horner64::<F>(z, &COS_P);
    let hz = 0.5 * z;
    let w = 1.0 - hz;
    let u = ((1.0 - w) - hz) + (z * r - x * y);
    let hi = w + u;
    (hi, (w - hi) + u)
}

/// `(sin, cos)` of the reduced argument, rotated by the quadrant `q`.
#[inline(always)]
fn sin_quadrant<const F: bool>(x: f64, q: i64) -> f64 {
    let (n, hi, lo) = rem_pio2::<F>(x);
    let n = n.wrapping_add(q);
    let y = rotate_quadrant(n, ksin::<F>(hi, lo), kcos::<F>(hi, lo));
    if x.is_infinite() { f64::NAN } else { y }
}

/// `sin(r + n pi/2)` from `s = sin r` and `c = cos r`.
#[inline(always)]
fn rotate_quadrant(n: i64, s: f64, c: f64) -> f64 {
    let y = if n & 1 == 0 { s } else { c };
    if n & 2 == 0 { y } else { -y }
}

#[inline(always)]
pub fn sin_f64<const F: bool>(x: f64) -> f64 {
    // (The reduction's final sum loses the sign of a zero.)
    let y = sin_quadrant::<F>(x, 0);
    if x == 0.0 { x } else { y }
}

#[inline(always)]
pub fn cos_f64<const F: bool>(x: f64) -> f64 {
    sin_quadrant::<F>(x, 1)
}

/// `tan x = sin/cos` of the reduced argument (`-cos/sin` in odd quadrants), both as `hi + lo`
/// pairs: the quotient of the high parts, corrected by its exact remainder (an FMA, or
/// [`super::two_prod64`]) and the low parts, so the result rounds ~once.
#[inline(always)]
pub fn tan_f64<const F: bool>(x: f64) -> f64 {
    let (n, hi, lo) = rem_pio2::<F>(x);
    let (sh, sl) = ksin_pair::<F>(hi, lo);
    let (ch, cl) = kcos_pair::<F>(hi, lo);
    let ((nh, nl), (dh, dl)) = if n & 1 == 0 {
        ((sh, sl), (ch, cl))
    } else {
        ((-ch, -cl), (sh, sl))
    };
    let q = nh / dh;
    let rem = if F {
        fma64::<F>(-q, dh, nh)
    } else {
        let (p, e) = super::two_prod64::<F>(q, dh);
        (nh - p) - e
    };
    let y = q + fma64::<F>(-q, dl, rem + nl) / dh;
    if x.is_infinite() {
        f64::NAN
    } else if x == 0.0 {
        x
    } else {
        y
    }
}

// Taylor coefficients for float32 results: on |r| <= pi/4 the first omitted terms are
// r^11/11! (< 2.5e-9 relative to sin r) and r^12/12! (< 1.2e-10), far below an f32 half-ulp.
const SIN32_P: [f64; 4] = [1.0 / 362_880.0, -1.0 / 5_040.0, 1.0 / 120.0, -1.0 / 6.0];
const COS32_P: [f64; 6] = [
    -1.0 / 3_628_800.0,
    1.0 / 40_320.0,
    -1.0 / 720.0,
    1.0 / 24.0,
    -0.5,
    1.0,
];

/// `sin(x + q pi/2)` of an f32 `x`, in f64 with what a float32 result needs: the f64 kernels'
/// reduction without the tail terms (`x - n PIO2_1` and the products are exact; the two
/// roundings that follow are ~2^-53 of a value that is at least ~1e-9 for f32 arguments below
/// `TRIG_MAX`) and short polynomials; one rounding to f32 at the end.
#[inline(always)]
fn sin_quadrant_f32<const F: bool>(x: f32, q: i64) -> f32 {
    let xd = x as f64;
    let xc = super::clamp64(xd, -TRIG_MAX, TRIG_MAX);
    let nf = fma64::<F>(xc, TWO_OVER_PI, ROUND64);
    let ni = (nf.to_bits() as i64).wrapping_sub(ROUND64.to_bits() as i64);
    let n = nf - ROUND64;
    let r = ((xc - n * PIO2_1) - n * PIO2_2) - n * PIO2_3;
    let z = r * r;
    let s = fma64::<F>(r * z, horner64::<F>(z, &SIN32_P), r);
    let c = horner64::<F>(z, &COS32_P);
    let y = rotate_quadrant(ni.wrapping_add(q), s, c);
    if xd.is_infinite() { f32::NAN } else { y as f32 }
}

/// Taylor coefficients of `(sin r - r)/r^3` in `z = r^2` for float32 results on `|r| <= pi/2`
/// (the first omitted term, `r^17/17!`, is below 2^-33): [`SIN_P`]'s from `r^15` on, then the
/// `r^3` term's `-1/6`.
const SIN32_PI_P: [f64; 7] = {
    let mut p = [-1.0 / 6.0; 7];
    let mut i = 0;
    while i < 6 {
        p[i] = SIN_P[i + 1];
        i += 1;
    }
    p
};

/// float32 `sin`: `x = n pi + r` (the pieces of `pi/2` doubled, so the products stay exact),
/// `sin x = (-1)^n sin r` with one odd polynomial on `|r| <= pi/2` (cheaper than the sin and
/// cos polynomials and the quadrant selects of the quarter-period reduction). No clamp: an
/// infinite `x` makes `r` NaN; arguments beyond `TRIG_MAX` get a meaningless `n` here and their
/// result from the slow path.
#[inline(always)]
pub fn sin_f32<const F: bool>(x: f32) -> f32 {
    const PI_1: f64 = 2.0 * PIO2_1;
    const PI_2: f64 = 2.0 * PIO2_2;
    const PI_3: f64 = 2.0 * PIO2_3;
    let xd = x as f64;
    let nf = fma64::<F>(xd, std::f64::consts::FRAC_1_PI, ROUND64);
    let n = nf - ROUND64;
    let r = ((xd - n * PI_1) - n * PI_2) - n * PI_3;
    let z = r * r;
    let s = fma64::<F>(r * z, horner64::<F>(z, &SIN32_PI_P), r);
    // The low mantissa bit of `nf` is the parity of `n`: moved to the sign bit.
    let y = f64::from_bits(s.to_bits() ^ (nf.to_bits() << 63)) as f32;
    // (The sum above loses the sign of a zero.)
    if x == 0.0 { x } else { y }
}

#[inline(always)]
pub fn cos_f32<const F: bool>(x: f32) -> f32 {
    sin_quadrant_f32::<F>(x, 1)
}

#[inline(always)]
pub fn tan_f32<const F: bool>(x: f32) -> f32 {
    tan_f64::<F>(x as f64) as f32
}

// ------------------------------------------------------------------------------ asin, acos

const PIO2_HI: f64 = std::f64::consts::FRAC_PI_2;
const PIO2_LO: f64 = 6.123_233_995_736_766_035_87e-17;
const PIO4_HI: f64 = std::f64::consts::FRAC_PI_4;
const PI: f64 = std::f64::consts::PI;
const PI_LO: f64 = 1.224_646_799_147_353_177_2e-16;

/// fdlibm's `R(z) = (asin(sqrt z) - sqrt z)/sqrt z` rational approximation.
#[inline(always)]
fn asin_r<const F: bool>(z: f64) -> f64 {
    const P: [f64; 6] = [
        3.479_331_075_960_211_675_70e-05,
        7.915_349_942_898_145_321_76e-04,
        -4.005_553_450_067_941_140_27e-02,
        2.012_125_321_348_629_258_81e-01,
        -3.255_658_186_224_009_154_05e-01,
        1.666_666_666_666_666_574_15e-01,
    ];
    const Q: [f64; 5] = [
        7.703_815_055_590_193_527_91e-02,
        -6.882_839_716_054_532_930_30e-01,
        2.020_945_760_233_505_694_71e+00,
        -2.403_394_911_734_414_218_78e+00,
        1.0,
    ];
    z * horner64::<F>(z, &P) / horner64::<F>(z, &Q)
}

/// `s` with its low 32 bits cleared (so that `s * s` is exact).
#[inline(always)]
fn high_part(s: f64) -> f64 {
    f64::from_bits(s.to_bits() & 0xffff_ffff_0000_0000)
}

#[inline(always)]
pub fn asin_f64<const F: bool>(x: f64) -> f64 {
    let a = x.abs();
    let small = fma64::<F>(x, asin_r::<F>(x * x), x);
    let z = (1.0 - a) * 0.5;
    let s = z.sqrt();
    let r = asin_r::<F>(z);
    let near_one = PIO2_HI - (2.0 * (s + s * r) - PIO2_LO);
    let df = high_part(s);
    let c = (z - df * df) / (s + df);
    let p = 2.0 * s * r - (PIO2_LO - 2.0 * c);
    let q = PIO4_HI - 2.0 * df;
    let mid = PIO4_HI - (p - q);
    let big = if a > 0.975 { near_one } else { mid };
    let y = if a < 0.5 { small } else { big.copysign(x) };
    if a > 1.0 { f64::NAN } else { y }
}

#[inline(always)]
pub fn acos_f64<const F: bool>(x: f64) -> f64 {
    let a = x.abs();
    let small = PIO2_HI - (x - (PIO2_LO - x * asin_r::<F>(x * x)));
    let z = (1.0 - a) * 0.5;
    let s = z.sqrt();
    let r = asin_r::<F>(z);
    let neg = 2.0 * (PIO2_HI - (s + (r * s - PIO2_LO)));
    let df = high_part(s);
    let c = (z - df * df) / (s + df);
    let pos = 2.0 * (df + (r * s + c));
    let y = if a < 0.5 {
        small
    } else if x < 0.0 {
        neg
    } else {
        pos
    };
    if x == 1.0 {
        0.0
    } else if x == -1.0 {
        PI
    } else if a > 1.0 {
        f64::NAN
    } else {
        y
    }
}

#[inline(always)]
pub fn asin_f32<const F: bool>(x: f32) -> f32 {
    asin_f64::<F>(x as f64) as f32
}

#[inline(always)]
pub fn acos_f32<const F: bool>(x: f32) -> f32 {
    acos_f64::<F>(x as f64) as f32
}

// ------------------------------------------------------------------------------ atan, atan2

const ATAN_HI: [f64; 4] = [
    4.636_476_090_008_060_935_15e-01,
    std::f64::consts::FRAC_PI_4,
    9.827_937_232_473_290_540_82e-01,
    std::f64::consts::FRAC_PI_2,
];
const ATAN_LO: [f64; 4] = [
    2.269_877_745_296_168_709_24e-17,
    3.061_616_997_868_383_017_93e-17,
    1.390_331_103_123_099_845_16e-17,
    6.123_233_995_736_766_035_87e-17,
];

/// `atan a` for `a >= 0` (or NaN): fdlibm's reduction to `|t| < 7/16` around the breakpoints
/// 0, 0.5, 1, 1.5 and inf, as one division of selected operands.
#[inline(always)]
fn atan_pos<const F: bool>(a: f64) -> f64 {
    let (num, den, hi, lo, id) = if a < 0.4375 {
        (a, 1.0, 0.0, 0.0, false)
    } else if a < 0.6875 {
        (2.0 * a - 1.0, 2.0 + a, ATAN_HI[0], ATAN_LO[0], true)
    } else if a < 1.1875 {
        (a - 1.0, a + 1.0, ATAN_HI[1], ATAN_LO[1], true)
    } else if a < 2.4375 {
        (a - 1.5, 1.0 + 1.5 * a, ATAN_HI[2], ATAN_LO[2], true)
    } else {
        (-1.0, a, ATAN_HI[3], ATAN_LO[3], true)
    };
    let t = num / den;
    const EVEN: [f64; 6] = [
        1.628_582_011_536_578_236_23e-02,
        4.976_877_994_615_932_360_17e-02,
        6.661_073_137_387_531_206_69e-02,
        9.090_887_133_436_506_561_96e-02,
        1.428_571_427_250_346_637_11e-01,
        3.333_333_333_333_293_180_27e-01,
    ];
    const ODD: [f64; 5] = [
        -3.653_157_274_421_691_552_70e-02,
        -5.833_570_133_790_573_486_45e-02,
        -7.691_876_205_044_829_994_95e-02,
        -1.111_111_040_546_235_578_80e-01,
        -1.999_999_999_987_648_324_76e-01,
    ];
    let z = t * t;
    let w = z * z;
    let s1 = z * horner64::<F>(w, &EVEN);
    let s2 = w * horner64::<F>(w, &ODD);
    let corr = t * (s1 + s2);
    if id { hi - ((corr - lo) - t) } else { t - corr }
}

#[inline(always)]
pub fn atan_f64<const F: bool>(x: f64) -> f64 {
    atan_pos::<F>(x.abs()).copysign(x)
}

#[inline(always)]
pub fn atan_f32<const F: bool>(x: f32) -> f32 {
    atan_f64::<F>(x as f64) as f32
}

/// `atan2(y, x)`: `atan(|y|/|x|)` moved to the quadrant of `(x, y)` (C99 Annex F special cases:
/// `±0` and `±inf` pairs, the sign of `x`'s zero).
#[inline(always)]
pub fn atan2_f64<const F: bool>(y: f64, x: f64) -> f64 {
    let (ax, ay) = (x.abs(), y.abs());
    let both_zero = (ax == 0.0) & (ay == 0.0);
    let both_inf = ax.is_infinite() & ay.is_infinite();
    let ratio = if both_zero {
        0.0
    } else if both_inf {
        1.0
    } else {
        ay / ax
    };
    let z = atan_pos::<F>(ratio);
    let z = if x.is_sign_negative() {
        PI - (z - PI_LO)
    } else {
        z
    };
    z.copysign(y)
}

#[inline(always)]
pub fn atan2_f32<const F: bool>(y: f32, x: f32) -> f32 {
    atan2_f64::<F>(y as f64, x as f64) as f32
}

// ------------------------------------------------------------------------------ sinh, cosh

/// Largest `x` with finite `e^x`.
const EXP_MAX: f64 = 709.782_712_893_384;

/// `e^a / 2` as `hi + lo` for `0.34 <= a <= EXP_MAX`: `2^(n-1) (1 + p)` from `exp_f64`'s
/// reduction and polynomial, `1 + p` split by Fast2Sum (`|p| < 1`) and both parts scaled
/// exactly, so `sinh` and `cosh` round their last sum only (instead of a rounded `e^a`'s error
/// passing through whole).
#[inline(always)]
fn half_exp_pair<const F: bool>(a: f64) -> (f64, f64) {
    let (n, r) = reduce_ln2_f64::<F>(a);
    let p = expm1_poly64::<F>(r, EXP_F64.poly);
    let h = 1.0 + p;
    let l = (1.0 - h) + p;
    let s = pow2i_f64(n - 1);
    (s * h, s * l)
}

#[inline(always)]
pub fn sinh_f64<const F: bool>(x: f64) -> f64 {
    const P: [f64; 9] = [
        1.0 / 121_645_100_408_832_000.0,
        1.0 / 355_687_428_096_000.0,
        1.0 / 1_307_674_368_000.0,
        1.0 / 6_227_020_800.0,
        1.0 / 39_916_800.0,
        1.0 / 362_880.0,
        1.0 / 5_040.0,
        1.0 / 120.0,
        1.0 / 6.0,
    ];
    let a = x.abs();
    let z = a * a;
    // Taylor to x^19 below 1 (truncation < 2^-56 relative).
    let small = fma64::<F>(a * z, horner64::<F>(z, &P), a);
    // e^a/2 - e^-a/2 from the pair of e^a/2 (a >= 1: the second term is at most 0.16 of the
    // result).
    let (hi, lo) = half_exp_pair::<F>(a);
    let mid = hi + (lo - 0.25 / hi);
    // Past EXP_MAX, e^a/2 as (e^(a/2)/2) e^(a/2).
    let w = exp_f64::<F>(0.5 * a);
    let big = (0.5 * w) * w;
    let y = if a < 1.0 {
        small
    } else if a <= EXP_MAX {
        mid
    } else {
        big
    };
    y.copysign(x)
}

#[inline(always)]
pub fn cosh_f64<const F: bool>(x: f64) -> f64 {
    const P: [f64; 8] = [
        1.0 / 20_922_789_888_000.0,
        1.0 / 87_178_291_200.0,
        1.0 / 479_001_600.0,
        1.0 / 3_628_800.0,
        1.0 / 40_320.0,
        1.0 / 720.0,
        1.0 / 24.0,
        0.5,
    ];
    let a = x.abs();
    let z = a * a;
    // Taylor to x^16 below ln2/2 (truncation < 2^-70).
    let small = fma64::<F>(z, horner64::<F>(z, &P), 1.0);
    let (hi, lo) = half_exp_pair::<F>(a);
    let mid = hi + (lo + 0.25 / hi);
    let w = exp_f64::<F>(0.5 * a);
    let big = (0.5 * w) * w;
    if a < 0.346_573_590_279_972_65 {
        small
    } else if a <= EXP_MAX {
        mid
    } else {
        big
    }
}

/// float32 sinh: `t + t/(t+1)` with `t = expm1|x|` in f64 (no overflow below f32's range).
#[inline(always)]
pub fn sinh_f32<const F: bool>(x: f32) -> f32 {
    let a = (x as f64).abs();
    let t = expm1_f64::<F>(a);
    let y = 0.5 * (t + t / (t + 1.0));
    let y = if a > 100.0 { f64::INFINITY } else { y };
    (y as f32).copysign(x)
}

/// float32 cosh: `(e + 1/e)/2` in f64 (the f64 rounding is far below f32's).
#[inline(always)]
pub fn cosh_f32<const F: bool>(x: f32) -> f32 {
    let e = exp_f64::<F>((x as f64).abs());
    (0.5 * e + 0.5 / e) as f32
}

// ------------------------------------------------------------------------------ pow

/// 2^52 and its bits (integers below 2^52 added to it land in its mantissa).
const TWO52: f64 = 4_503_599_627_370_496.0;
const TWO52_BITS: u64 = 0x4330_0000_0000_0000;

/// `(y is an integer, y is an odd integer)`, by the `2^52` rounding trick (vectorizes).
#[inline(always)]
pub(super) fn int_parity(y: f64) -> (bool, bool) {
    let a = y.abs();
    let t = a + TWO52;
    let big = a >= TWO52;
    let is_int = big | (t - TWO52 == a);
    let odd_small = t.to_bits() & 1 == 1;
    let odd_big = (a < 2.0 * TWO52) & (a.to_bits() & 1 == 1);
    let odd = is_int & if big { odd_big } else { odd_small };
    (is_int, odd)
}

/// float32 `x ** y` as `e^(y ln|x|)` in f64 (relative error of the f64 exponent below 2^-44 for
/// every finite f32 result, so one final rounding), with C99's special cases: `x ** 0 = 1` and
/// `1 ** y = 1` even for NaN, `(-1) ** ±inf = 1`, the sign of odd integer powers of negative `x`
/// (and of `-0`), NaN for a negative base to a non-integer power; `x ** 2` is the exact square
/// rounded once (PyTorch's `x * x`).
#[inline(always)]
pub fn pow_f32<const F: bool>(x: f32, y: f32) -> f32 {
    let (xd, yd) = (x as f64, y as f64);
    let ax = xd.abs();
    let r = super::exp_for_f32::<F>(yd * super::log_of_f32_f64::<F>(ax));
    let r = if yd == 2.0 { xd * xd } else { r };
    let (is_int, odd) = int_parity(yd);
    let r = if x.is_sign_negative() & odd { -r } else { r };
    let r = if (xd < 0.0) & (xd > f64::NEG_INFINITY) & !is_int {
        f64::NAN
    } else {
        r
    };
    let r = if (ax == 1.0) & yd.is_infinite() {
        1.0
    } else {
        r
    };
    let r = if (xd == 1.0) | (yd == 0.0) { 1.0 } else { r };
    r as f32
}

/// float64 `x ** y` within 1 ulp: `e^(y ln|x|)` with `ln|x|` as a pair `lh + ll` good to
/// ~2^-68 relative ([`log_pair_f64`]), `y (lh + ll) = th + tl` ([`super::two_prod64`] of `y lh`,
/// `y ll` added to its error) and `e^(th + tl)` rounded once ([`exp_pair_f64`], subnormal
/// results too). Special values as [`pow_f32`] (C99 Annex F, glibc's bits): `x ** 0 = 1` and
/// `1 ** y = 1` even for NaN, `(-1) ** ±inf = 1`, `±0` and `±inf` bases by selects, the sign of
/// odd integer powers of negative `x` (and `-0`), NaN for a negative base to a non-integer power;
/// `x ** 2` is the exact square rounded once (PyTorch's `x * x`, correctly rounded).
#[inline(always)]
pub fn pow_f64<const F: bool>(x: f64, y: f64) -> f64 {
    let ax = x.abs();
    let (lh, ll) = log_pair_f64::<F>(ax);
    let (th, tl) = super::two_prod64::<F>(y, lh);
    let r = exp_pair_f64::<F>(th, fma64::<F>(y, ll, tl));
    let r = if y == 2.0 { x * x } else { r };
    // ±0 and ±inf bases (the table log of their bits is meaningless); y NaN keeps the NaN.
    let zero_inf = if y < 0.0 {
        f64::INFINITY
    } else if y > 0.0 {
        0.0
    } else {
        r
    };
    let r = if ax == 0.0 { zero_inf } else { r };
    let inf_zero = if y < 0.0 {
        0.0
    } else if y > 0.0 {
        f64::INFINITY
    } else {
        r
    };
    let r = if ax == f64::INFINITY { inf_zero } else { r };
    let r = if x.is_nan() { x } else { r };
    let (is_int, odd) = int_parity(y);
    let r = if x.is_sign_negative() & odd { -r } else { r };
    let r = if (x < 0.0) & (x > f64::NEG_INFINITY) & !is_int {
        f64::NAN
    } else {
        r
    };
    let r = if (ax == 1.0) & y.is_infinite() {
        1.0
    } else {
        r
    };
    if (x == 1.0) | (y == 0.0) { 1.0 } else { r }
}

/// What [`log_pair_f64`] subtracts from `x`'s bits: those of `z0 = 181/256`, the start of the
/// reduced range `[z0, 2 z0)` (see [`POW_LOG_TABLE_F64`]).
const POW_LOG_OFF_F64: u64 = 0x3ff0_0000_0000_0000 - (75 << 45);

/// `(log(1+r) - r + r^2/2) / r^3` for `|r| <= 2^-7`: Taylor's coefficients `1/3 - r/4 + ...`
/// to `r^10`, highest first (truncation below 2^-80 absolute, 2^-73 relative to `log(1+r)`).
const POW_LOG1P_POLY_F64: [f64; 8] = [
    -1.0 / 10.0,
    1.0 / 9.0,
    -1.0 / 8.0,
    1.0 / 7.0,
    -1.0 / 6.0,
    1.0 / 5.0,
    -1.0 / 4.0,
    1.0 / 3.0,
];

/// `ln x = hi + lo` for positive finite `x` (subnormals pre-scaled by 2^54), `|lo| <= ulp(hi)/2`,
/// relative error ~2^-68 (the scheme of glibc's pow, with this file's table and Taylor's
/// polynomial): `x = 2^k z`, `ln x = k ln2 + log c + log(1 + r)` with `r = z invc - 1` exact
/// ([`POW_LOG_TABLE_F64`]: `|r| <= 2^-7`; one FMA, or without one `z` split into a 45-bit and an
/// 8-bit part whose products with the 8-bit `invc` are exact). The leading terms are summed
/// exactly: `k ln2_hi + log c_hi` (exact product; Fast2Sum, `|k ln2| > |log c|` unless `k = 0`),
/// `+ r` (TwoSum), `- r^2/2` (an exact pair: [`super::two_prod64`]; Fast2Sum, `|r^2/2|` is
/// below the running sum), their rounding errors added to the small terms (`k ln2_lo`,
/// `log c_lo`, `r^3 P(r)`), and the two parts renormalized by Fast2Sum.
#[inline(always)]
fn log_pair_f64<const F: bool>(x: f64) -> (f64, f64) {
    let sub = x < f64::MIN_POSITIVE;
    let xs = if sub { x * 18_014_398_509_481_984.0 } else { x }; // 2^54
    let tmp = xs.to_bits().wrapping_sub(POW_LOG_OFF_F64);
    let i = ((tmp >> 45) & 127) as usize;
    // k = the top 12 bits of tmp as a signed number, as a float without an int-to-float
    // conversion or an arithmetic shift (neither is an AVX2 instruction for 64-bit lanes):
    // k + 2048 in the low bits of 2^52's mantissa.
    let kb = (tmp.wrapping_add(0x800 << 52) >> 52) | TWO52_BITS;
    let kd = (f64::from_bits(kb) - (TWO52 + 2048.0)) - if sub { 54.0 } else { 0.0 };
    let iz = xs.to_bits().wrapping_sub(tmp & (0xfff << 52));
    let z = f64::from_bits(iz);
    let (invc, lc_hi, lc_lo) = POW_LOG_TABLE_F64[i];
    let r = if F {
        fma64::<F>(z, invc, -1.0)
    } else {
        let zh = f64::from_bits(iz & !0xff);
        (zh * invc - 1.0) + (z - zh) * invc
    };
    let a = kd * super::LOG_LN2_HI_F64;
    let t1 = a + lc_hi;
    let e1 = (a - t1) + lc_hi;
    let (t2, e2) = two_sum(t1, r);
    let (ar2, e3) = super::two_prod64::<F>(-0.5 * r, r);
    let hi = t2 + ar2;
    let e4 = (t2 - hi) + ar2;
    let p = (r * (r * r)) * horner64::<F>(r, &POW_LOG1P_POLY_F64);
    let lo = (fma64::<F>(kd, super::LOG_LN2_LO_F64, lc_lo) + e1) + ((e2 + e3) + e4) + p;
    let lh = hi + lo;
    (lh, (hi - lh) + lo)
}

/// `e^(th + tl)` for `|tl|` within a few ulps of `th`, rounded once: `th` clamped to
/// `[-760, 720]` (past underflow to 0 and overflow; `tl` dropped outside), `th = n ln2 + r + rl`
/// ([`super::reduce_ln2_lo_f64`]), `e^(r + d) = (1 + r) + q + d (1 + r + q)` with
/// `d = rl + tl`, `q = r^2 P(r)` ([`EXPM1_POLY_F64`], Taylor to r^13) and `1 + r = s + e`
/// exactly (Fast2Sum), so that `m = s + (e + q + ...)` is the one rounding; then `m 2^n` by
/// two exact factors. Subnormal results are rounded once on their own grid: with
/// `a + b = m 2^(n+1022)` below 1, `((1 + a) + b) - 1` rounds at 2^-52, which `2^-1022`
/// scales to 2^-1074 exactly (glibc's `specialcase`).
#[inline(always)]
fn exp_pair_f64<const F: bool>(th: f64, tl: f64) -> f64 {
    let tl = if th.abs() <= 720.0 { tl } else { 0.0 };
    let tc = super::clamp64(th, -760.0, 720.0);
    let (n, r, rl) = super::reduce_ln2_lo_f64::<F>(tc);
    let d = rl + tl;
    let s = 1.0 + r;
    let e = (1.0 - s) + r;
    let q = (r * r) * horner64::<F>(r, &super::EXPM1_POLY_F64);
    let low = q + (e + fma64::<F>(d, r + q, d));
    let (s1, s2) = super::pow2i_split_f64(n);
    let normal = (s + low) * s1 * s2;
    let tiny = n < -1020;
    let sc = pow2i_f64(if tiny { n.wrapping_add(1022) } else { 0 });
    let (a, b) = (s * sc, low * sc);
    let h = 1.0 + a;
    let l = ((1.0 - h) + a) + b;
    let sub = ((h + l) - 1.0) * f64::MIN_POSITIVE;
    if tiny & (a + b < 1.0) { sub } else { normal }
}

/// float64 pow's log table ([`log_pair_f64`]): per row `(invc, log c hi, log c lo)` with
/// `c = 1/invc`, generated by `crates/pyjit-runtime/tools/gen_pow_log_table_f64.py` (which
/// explains the rows and checks that `r = z invc - 1` is exact and at most 2^-7).
pub(crate) const POW_LOG_TABLE_F64: [(f64, f64, f64); 128] = [
    (1.4140625, -0.34646676734620857, -1.028583585496265e-17),
    (1.40625, -0.3409265869705932, -1.7467136443544747e-17),
    (1.3984375, -0.3353555419211378, -1.834564437059473e-17),
    (1.390625, -0.329753286372468, -2.122020616196946e-18),
    (1.3828125, -0.324119468654212, 7.958214381893813e-18),
    (1.375, -0.3184537311185346, -2.7114779367326236e-17),
    (1.3671875, -0.3127557100038969, 1.451808353098951e-17),
    (1.359375, -0.3070250352949119, 1.2319916200101964e-17),
    (1.3515625, -0.3012613305781618, 9.048511144048564e-18),
    (1.34375, -0.2954642128938359, 2.16461086040599e-17),
    (1.3359375, -0.28963329258304266, -2.0535953219858174e-17),
    (1.328125, -0.2837681731306446, 2.032665581126656e-17),
    (1.3203125, -0.2778684510034563, 9.16018294909263e-19),
    (1.3125, -0.27193371548364176, -7.83319637697442e-19),
    (1.3125, -0.27193371548364176, -7.83319637697442e-19),
    (1.3046875, -0.26596354849713794, -5.3393802761314314e-18),
    (1.296875, -0.25995752443692605, -2.069806938978935e-17),
    (1.2890625, -0.25391520998096345, 8.048097394424201e-18),
    (1.28125, -0.24783616390458127, 1.2432209578702523e-17),
    (1.2734375, -0.24171993688714516, -8.900990022166643e-18),
    (1.2734375, -0.24171993688714516, -8.900990022166643e-18),
    (1.265625, -0.2355660713127669, 2.3943371495187355e-18),
    (1.2578125, -0.22937410106484582, -9.927671823978025e-18),
    (1.25, -0.22314355131420976, 9.091270597324799e-18),
    (1.2421875, -0.21687393830061436, -4.551026193234283e-18),
    (1.2421875, -0.21687393830061436, -4.551026193234283e-18),
    (1.234375, -0.21056476910734964, 4.249405314729895e-18),
    (1.2265625, -0.2042155414286909, -2.7338281018722773e-18),
    (1.21875, -0.19782574332991987, -1.2821194372980142e-17),
    (1.21875, -0.19782574332991987, -1.2821194372980142e-17),
    (1.2109375, -0.19139485299962947, 1.2129496905792884e-17),
    (1.203125, -0.184922338494012, -3.0236614153574064e-18),
    (1.1953125, -0.1784076574728183, 1.2432553788701131e-17),
    (1.1953125, -0.1784076574728183, 1.2432553788701131e-17),
    (1.1875, -0.17185025692665923, 6.0224538210113705e-18),
    (1.1796875, -0.16524957289530717, 1.0094935622322628e-17),
    (1.1796875, -0.16524957289530717, 1.0094935622322628e-17),
    (1.171875, -0.15860503017663857, -1.1257003872182592e-17),
    (1.1640625, -0.15191604202584197, -6.4838631244022194e-18),
    (1.1640625, -0.15191604202584197, -6.4838631244022194e-18),
    (1.15625, -0.1451820098444979, -8.242418783022475e-18),
    (1.1484375, -0.13840232285911913, -4.447777301357527e-18),
    (1.1484375, -0.13840232285911913, -4.447777301357527e-18),
    (1.140625, -0.13157635778871926, -1.1123000879729588e-17),
    (1.1328125, -0.12470347850095724, 4.6522609636496624e-18),
    (1.1328125, -0.12470347850095724, 4.6522609636496624e-18),
    (1.125, -0.11778303565638346, 1.1971685747593677e-18),
    (1.1171875, -0.11081436634029011, -1.183748342825649e-18),
    (1.1171875, -0.11081436634029011, -1.183748342825649e-18),
    (1.109375, -0.10379679368164356, -5.47772415726659e-18),
    (1.109375, -0.10379679368164356, -5.47772415726659e-18),
    (1.1015625, -0.09672962645855111, 5.597397486289965e-19),
    (1.09375, -0.08961215868968714, 5.4268129336647135e-18),
    (1.09375, -0.08961215868968714, 5.4268129336647135e-18),
    (1.0859375, -0.08244366921107459, -5.700437773813987e-18),
    (1.0859375, -0.08244366921107459, -5.700437773813987e-18),
    (1.078125, -0.07522342123758753, 5.930604196293241e-18),
    (1.0703125, -0.06795066190850775, 1.2802141240611733e-18),
    (1.0703125, -0.06795066190850775, 1.2802141240611733e-18),
    (1.0625, -0.06062462181643484, -2.6424025938726934e-18),
    (1.0625, -0.06062462181643484, -2.6424025938726934e-18),
    (1.0546875, -0.053244514518812285, 1.665575816973663e-18),
    (1.0546875, -0.053244514518812285, 1.665575816973663e-18),
    (1.046875, -0.0458095360312942, -1.902959866474257e-18),
    (1.0390625, -0.0383188643021366, 2.357996157351286e-18),
    (1.0390625, -0.0383188643021366, 2.357996157351286e-18),
    (1.03125, -0.030771658666753687, -1.0431732029005968e-18),
    (1.03125, -0.030771658666753687, -1.0431732029005968e-18),
    (1.0234375, -0.02316705928153438, 1.1769544932063305e-18),
    (1.0234375, -0.02316705928153438, 1.1769544932063305e-18),
    (1.015625, -0.015504186535965254, 3.278321022892429e-19),
    (1.015625, -0.015504186535965254, 3.278321022892429e-19),
    (1.0078125, -0.007782140442054949, 1.2819179123343845e-20),
    (1.0078125, -0.007782140442054949, 1.2819179123343845e-20),
    (1.0, 0.0, 0.0),
    (1.0, 0.0, 0.0),
    (0.98828125, 0.01178795575204224, 2.208154666796622e-19),
    (0.98046875, 0.01972450534777859, -1.3445979863167511e-18),
    (0.97265625, 0.027724548014854862, -1.56535712927094e-18),
    (0.96484375, 0.03578910785158528, -2.740984674024185e-18),
    (0.95703125, 0.04391923393483549, 1.762355270004629e-18),
    (0.953125, 0.048009219186360606, 1.4390903347292205e-18),
    (0.9453125, 0.05623971832287608, -3.2835149805605613e-18),
    (0.9375, 0.06453852113757118, -6.470486661692933e-18),
    (0.9296875, 0.07290677080808779, -6.306860257532778e-18),
    (0.92578125, 0.07711730334443129, 2.5654358635266204e-18),
    (0.91796875, 0.08559193033540351, 6.769872319991152e-18),
    (0.91015625, 0.09413899091386191, 1.4973805419956277e-18),
    (0.90625, 0.09844007281325252, -4.439009633675136e-18),
    (0.8984375, 0.1070981355563671, -1.73705104015906e-18),
    (0.890625, 0.1158318155251217, 4.338484369808096e-18),
    (0.88671875, 0.1202274269981598, -2.8375497328444e-18),
    (0.87890625, 0.12907704227514236, -1.2940973323385866e-17),
    (0.875, 0.13353139262452263, -3.664457663660085e-18),
    (0.8671875, 0.14250006260728304, -9.926388234225749e-18),
    (0.86328125, 0.14701474296180966, -4.46694718500102e-18),
    (0.85546875, 0.15610571466306167, -1.2806970330932862e-17),
    (0.8515625, 0.16068238169047347, -3.650183553047837e-18),
    (0.84375, 0.16989903679539747, -4.868008764439071e-19),
    (0.83984375, 0.17453941635189968, -1.5833038914101321e-18),
    (0.83203125, 0.18388527877013736, 6.716094199344591e-18),
    (0.828125, 0.18859116980755003, -7.432164219196925e-18),
    (0.82421875, 0.19331931100349597, 4.630440315107144e-18),
    (0.81640625, 0.20284319251475147, 2.0981425921481313e-18),
    (0.8125, 0.2076393647782445, 1.2053243216686129e-17),
    (0.80859375, 0.2124586512141934, -9.63115306272449e-18),
    (0.80078125, 0.2221674653411543, -1.0797202916767509e-17),
    (0.796875, 0.22705745063534608, 9.551415762738488e-18),
    (0.79296875, 0.23197146543777514, 5.774320510479237e-18),
    (0.7890625, 0.2369097470783577, 1.9682402978398164e-18),
    (0.78125, 0.24686007793152578, 1.361743371748368e-17),
    (0.77734375, 0.2518726197550701, -1.8984402852371785e-18),
    (0.7734375, 0.2569104137850272, 2.502843296152504e-17),
    (0.76953125, 0.26197371574157396, 3.769957084925505e-18),
    (0.765625, 0.26706278524904525, -7.32891532732017e-18),
    (0.7578125, 0.27731928541623435, -7.44528405583513e-18),
    (0.75390625, 0.2824872555746769, 1.3652325538490778e-17),
    (0.75, 0.2876820724517809, 2.607160616442564e-17),
    (0.74609375, 0.2929040164329326, -2.097144388760612e-17),
    (0.7421875, 0.29815337231907635, -1.720695867445866e-17),
    (0.73828125, 0.3034304294199201, -4.151258540103992e-18),
    (0.734375, 0.3087354816496133, -1.6199186085148102e-17),
    (0.73046875, 0.31406882762497584, 7.311073985078525e-18),
    (0.7265625, 0.3194307707663612, 1.354256857264811e-18),
    (0.72265625, 0.32482161940123766, -3.7162556628635935e-18),
    (0.71875, 0.33024168687057687, -1.0828321637483858e-17),
    (0.71484375, 0.33569129163814154, -7.183773020381283e-18),
    (0.7109375, 0.34117075740276714, -1.9366790062602867e-17),
];
