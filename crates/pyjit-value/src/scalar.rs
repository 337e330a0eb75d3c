//! Python's semantics for `int`, `float` and `bool` operators, the `math` module and `round`,
//! with CPython 3.11's results, exception classes and messages. Every layer that computes a
//! Python scalar (the interpreter, the constant folder, the tracer's eager evaluator and native
//! code's host functions) calls these functions; none has its own copy.
//!
//! The language's `int` is a 64-bit signed integer that wraps (LANGUAGE.md): where CPython's
//! exact integer result does not fit, the result is CPython's reduced modulo 2^64, and a float
//! converted to an int that does not fit raises `OverflowError`. `int ** negative` and a negative
//! float to a fractional power (a float and a complex number in CPython) raise `ValueError`,
//! because the static type of the result cannot depend on the operand's value.

use crate::error::{ExcKind, PyErr};
use crate::value::Value;
use pyjit_ir::{BoolBinOp, CastOp, CmpOp, FloatBinOp, FloatUnOp, IntBinOp, IntUnOp, MathFn};
use std::f64::consts::PI;

fn err(kind: ExcKind, msg: &str) -> PyErr {
    PyErr::new(kind, msg)
}

fn domain() -> PyErr {
    err(ExcKind::ValueError, "math domain error")
}

fn range_err() -> PyErr {
    err(ExcKind::OverflowError, "math range error")
}

// ---- int ----

pub fn int_bin(op: IntBinOp, a: i64, b: i64) -> Result<i64, PyErr> {
    Ok(match op {
        IntBinOp::Add => a.wrapping_add(b),
        IntBinOp::Sub => a.wrapping_sub(b),
        IntBinOp::Mul => a.wrapping_mul(b),
        IntBinOp::FloorDiv => {
            if b == 0 {
                return Err(err(
                    ExcKind::ZeroDivisionError,
                    "integer division or modulo by zero",
                ));
            }
            let q = a.wrapping_div(b);
            if a.wrapping_rem(b) != 0 && ((a < 0) != (b < 0)) {
                q.wrapping_sub(1)
            } else {
                q
            }
        }
        IntBinOp::Mod => {
            if b == 0 {
                // CPython 3.11 words `%` and `//` differently.
                return Err(err(ExcKind::ZeroDivisionError, "integer modulo by zero"));
            }
            let r = a.wrapping_rem(b);
            if r != 0 && ((r < 0) != (b < 0)) {
                r.wrapping_add(b)
            } else {
                r
            }
        }
        IntBinOp::Pow => {
            if b < 0 {
                // Python gives a float here, but `int ** int` is statically an int
                // (docs/language.md, "Integer powers"): say how to get the float.
                return Err(err(
                    ExcKind::ValueError,
                    &format!(
                        "{a} ** {b}: an int to a negative int power is a float in Python, but \
                         `int ** int` is typed int here; convert the base for the float result: \
                         float({a}) ** {b} == {:?}",
                        (a as f64).powf(b as f64)
                    ),
                ));
            }
            // a^b = (a^(2^32))^hi · a^lo with b = hi·2^32 + lo, all modulo 2^64.
            let (hi, lo) = ((b as u64 >> 32) as u32, b as u32);
            let a_2_32 = a.wrapping_pow(1 << 31).wrapping_pow(2);
            a_2_32.wrapping_pow(hi).wrapping_mul(a.wrapping_pow(lo))
        }
        IntBinOp::BitAnd => a & b,
        IntBinOp::BitOr => a | b,
        IntBinOp::BitXor => a ^ b,
        IntBinOp::Shl => {
            if b < 0 {
                return Err(negative_shift());
            }
            if b >= 64 { 0 } else { a.wrapping_shl(b as u32) }
        }
        IntBinOp::Shr => {
            if b < 0 {
                return Err(negative_shift());
            }
            if b >= 64 {
                if a < 0 { -1 } else { 0 }
            } else {
                a >> b
            }
        }
    })
}

pub fn int_un(op: IntUnOp, a: i64) -> i64 {
    match op {
        IntUnOp::Neg => a.wrapping_neg(),
        IntUnOp::Invert => !a,
        IntUnOp::Abs => a.wrapping_abs(),
    }
}

/// `a / b` of two ints: CPython's correctly rounded true division (`long_true_divide`), exact
/// even where the operands do not convert to floats exactly.
pub fn int_truediv(a: i64, b: i64) -> Result<f64, PyErr> {
    if b == 0 {
        return Err(err(ExcKind::ZeroDivisionError, "division by zero"));
    }
    const EXACT: u64 = 1 << 53;
    if a.unsigned_abs() <= EXACT && b.unsigned_abs() <= EXACT {
        // Both convert exactly: one IEEE division rounds once.
        return Ok(a as f64 / b as f64);
    }
    let negative = (a < 0) != (b < 0);
    let (n, d) = (a.unsigned_abs() as u128, b.unsigned_abs() as u128);
    if n == 0 {
        return Ok(if negative { -0.0 } else { 0.0 });
    }
    // Scale the numerator so the integer quotient has at least 55 significant bits, then round
    // the quotient (with a sticky bit for a nonzero remainder) to 53 bits, half to even.
    let mut shift: i32 = 0;
    let (mut n2, d2) = (n, d);
    while n2 / d2 < (1u128 << 55) {
        n2 <<= 1;
        shift += 1;
    }
    let q = n2 / d2;
    let sticky = n2 % d2 != 0;
    let bits = 128 - q.leading_zeros() as i32;
    let extra = bits - 53;
    let mut mant = q >> extra;
    let rest = q & ((1u128 << extra) - 1);
    let half = 1u128 << (extra - 1);
    if rest > half || (rest == half && (sticky || mant & 1 == 1)) {
        mant += 1;
    }
    let r = (mant as f64) * 2f64.powi(extra - shift);
    Ok(if negative { -r } else { r })
}

/// The exception an int operator that checks its divisor (`//`, `%`) raises for a zero divisor,
/// for backends that test the divisor inline.
pub fn int_zero_division(op: IntBinOp) -> PyErr {
    int_bin(op, 1, 0).err().unwrap_or_else(|| {
        PyErr::new(
            ExcKind::Internal,
            format!("{op:?} does not check its divisor"),
        )
    })
}

/// The exception of a shift by a negative count.
pub fn negative_shift() -> PyErr {
    err(ExcKind::ValueError, "negative shift count")
}

/// The exception of float true division by zero (`int / int` words it differently: see
/// [`int_truediv`]).
pub fn float_zero_division() -> PyErr {
    err(ExcKind::ZeroDivisionError, "float division by zero")
}

/// The exception of a call deeper than the recursion limit.
pub fn recursion_error() -> PyErr {
    err(
        ExcKind::RecursionError,
        "maximum recursion depth exceeded while calling a Python object",
    )
}

// ---- float ----

/// A binary float operator.
pub fn float_bin(op: FloatBinOp, a: f64, b: f64) -> Result<f64, PyErr> {
    Ok(match op {
        FloatBinOp::Add => a + b,
        FloatBinOp::Sub => a - b,
        FloatBinOp::Mul => a * b,
        FloatBinOp::Div => {
            if b == 0.0 {
                return Err(float_zero_division());
            }
            a / b
        }
        FloatBinOp::FloorDiv => {
            if b == 0.0 {
                return Err(err(
                    ExcKind::ZeroDivisionError,
                    "float floor division by zero",
                ));
            }
            py_divmod(a, b).0
        }
        FloatBinOp::Mod => {
            if b == 0.0 {
                return Err(err(ExcKind::ZeroDivisionError, "float modulo"));
            }
            py_divmod(a, b).1
        }
        FloatBinOp::Pow => float_pow(a, b)?,
    })
}

/// CPython's `float_divmod` (Objects/floatobject.c): floor quotient and remainder with the
/// divisor's sign, exact signed zeros included.
fn py_divmod(vx: f64, wx: f64) -> (f64, f64) {
    let mut m = vx % wx;
    let mut div = (vx - m) / wx;
    if m != 0.0 {
        if (wx < 0.0) != (m < 0.0) {
            m += wx;
            div -= 1.0;
        }
    } else {
        m = 0.0f64.copysign(wx);
    }
    let floordiv = if div != 0.0 {
        let mut fd = div.floor();
        if div - fd > 0.5 {
            fd += 1.0;
        }
        fd
    } else {
        0.0f64.copysign(vx / wx)
    };
    (floordiv, m)
}

/// Whether `y` is an odd integer (CPython's `DOUBLE_IS_ODD_INTEGER`).
fn is_odd_integer(y: f64) -> bool {
    y.is_finite() && (y % 2.0).abs() == 1.0
}

/// CPython's `float_pow`: `x ** y` of two floats.
pub fn float_pow(iv: f64, iw: f64) -> Result<f64, PyErr> {
    if iw == 0.0 {
        return Ok(1.0);
    }
    if iv.is_nan() {
        return Ok(iv);
    }
    if iw.is_nan() {
        return Ok(if iv == 1.0 { 1.0 } else { iw });
    }
    if iw.is_infinite() {
        let a = iv.abs();
        return Ok(if a == 1.0 {
            1.0
        } else if (iw > 0.0) == (a > 1.0) {
            iw.abs()
        } else {
            0.0
        });
    }
    if iv.is_infinite() {
        let odd = is_odd_integer(iw);
        return Ok(if iw > 0.0 {
            if odd { iv } else { iv.abs() }
        } else if odd {
            0.0f64.copysign(iv)
        } else {
            0.0
        });
    }
    if iv == 0.0 {
        if iw < 0.0 {
            return Err(err(
                ExcKind::ZeroDivisionError,
                "0.0 cannot be raised to a negative power",
            ));
        }
        return Ok(if is_odd_integer(iw) { iv } else { 0.0 });
    }
    let mut negate = false;
    let mut v = iv;
    if iv < 0.0 {
        if iw != iw.floor() {
            // CPython returns a complex number here; the language has none.
            return Err(err(
                ExcKind::ValueError,
                "a negative number cannot be raised to a fractional power",
            ));
        }
        v = -iv;
        negate = is_odd_integer(iw);
    }
    if v == 1.0 {
        return Ok(if negate { -1.0 } else { 1.0 });
    }
    let r = v.powf(iw);
    if r.is_infinite() {
        return Err(err(
            ExcKind::OverflowError,
            "(34, 'Numerical result out of range')",
        ));
    }
    Ok(if negate { -r } else { r })
}

pub fn float_un(op: FloatUnOp, a: f64) -> f64 {
    match op {
        FloatUnOp::Neg => -a,
        FloatUnOp::Abs => a.abs(),
    }
}

/// `a op b`: the comparison tensor elements are compared with ([`CmpOp::eval`]).
pub fn cmp<T: PartialOrd>(op: CmpOp, a: T, b: T) -> bool {
    op.eval(a, b)
}

/// IEEE comparison (every comparison with NaN is false except `ne`), which `PartialOrd` gives.
pub fn float_cmp(op: CmpOp, a: f64, b: f64) -> bool {
    cmp(op, a, b)
}

pub fn bool_bin(op: BoolBinOp, a: bool, b: bool) -> bool {
    match op {
        BoolBinOp::And => a & b,
        BoolBinOp::Or => a | b,
        BoolBinOp::Xor => a ^ b,
    }
}

/// Python's `int(x)` of a float: truncation toward zero.
pub fn float_to_int(x: f64) -> Result<i64, PyErr> {
    if x.is_nan() {
        return Err(err(
            ExcKind::ValueError,
            "cannot convert float NaN to integer",
        ));
    }
    if x.is_infinite() {
        return Err(err(
            ExcKind::OverflowError,
            "cannot convert float infinity to integer",
        ));
    }
    let t = x.trunc();
    // i64::MIN is exactly representable; 2^63 is not an i64.
    if !(-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&t) {
        return Err(err(
            ExcKind::OverflowError,
            "int too large to convert to a 64-bit int",
        ));
    }
    Ok(t as i64)
}

/// A scalar cast (`float(i)`, `int(x)`, `bool(x)` …).
pub fn cast(op: CastOp, v: &Value) -> Option<Result<Value, PyErr>> {
    Some(Ok(match (op, v) {
        (CastOp::IntToFloat, Value::Int(i)) => Value::Float(*i as f64),
        (CastOp::IntToBool, Value::Int(i)) => Value::Bool(*i != 0),
        (CastOp::FloatToInt, Value::Float(x)) => return Some(float_to_int(*x).map(Value::Int)),
        (CastOp::FloatToBool, Value::Float(x)) => Value::Bool(*x != 0.0),
        (CastOp::BoolToInt, Value::Bool(b)) => Value::Int(*b as i64),
        (CastOp::BoolToFloat, Value::Bool(b)) => Value::Float(*b as u8 as f64),
        _ => return None,
    }))
}

// ---- round ----

/// `round(x)` of a float: half to even, as an int.
pub fn round_float(x: f64) -> Result<i64, PyErr> {
    float_to_int(x.round_ties_even())
}

/// `round(x, ndigits)` of a float: CPython's `double_round`, the correctly rounded decimal
/// (half to even on the exact binary value, so `round(2.675, 2)` is `2.67`) read back as the
/// nearest float.
pub fn round_float_digits(x: f64, ndigits: i64) -> Result<f64, PyErr> {
    // CPython's NDIGITS_MAX and NDIGITS_MIN for IEEE doubles.
    if ndigits > 323 || !x.is_finite() || x == 0.0 {
        return Ok(x);
    }
    if ndigits < -308 {
        return Ok(0.0 * x);
    }
    let text = if ndigits >= 0 {
        // Rust's fixed-precision formatting is exact and rounds ties to even, like dtoa mode 3.
        format!("{:.*}", ndigits as usize, x)
    } else {
        // Round to a multiple of 10^k, k = -ndigits: keep the digits before the point that
        // remain. The shortest round-trip form's exponent is the exact decimal exponent.
        let k = -ndigits;
        let shortest = format!("{:e}", x.abs());
        let exp10: i64 = shortest
            .split_once('e')
            .and_then(|(_, e)| e.parse().ok())
            .unwrap_or(0);
        let keep = exp10 + 1 - k;
        if keep < 0 {
            return Ok(0.0f64.copysign(x));
        }
        if keep == 0 {
            // 10^(k-1) <= |x| < 10^k: the result is 10^k if |x| > 5·10^(k-1), else 0 (a tie
            // goes to the even 0).
            let above_half = if k <= 22 {
                // 5·10^(k-1) = 5^k·2^(k-1) is exact in f64 (5^22 < 2^53).
                x.abs() > 5.0 * 10f64.powi((k - 1) as i32)
            } else {
                // |x| >= 10^22 > 2^53 is an integer with k decimal digits: compare them.
                let digits = format!("{:.0}", x.abs());
                let half = format!("5{}", "0".repeat((k - 1) as usize));
                digits.len() == half.len() && digits > half
            };
            let unit: f64 = format!("1e{k}").parse().unwrap_or(f64::INFINITY);
            let r = if above_half { unit } else { 0.0 };
            return finish_round(r.copysign(x));
        }
        format!("{:.*e}", (keep - 1) as usize, x)
    };
    finish_round(text.parse::<f64>().unwrap_or(f64::NAN))
}

fn finish_round(r: f64) -> Result<f64, PyErr> {
    if r.is_infinite() {
        return Err(err(
            ExcKind::OverflowError,
            "rounded value too large to represent",
        ));
    }
    Ok(r)
}

/// `round(i, ndigits)` of an int: a multiple of 10^-ndigits, half to even (`round(25, -1)` is
/// `20`); the int itself for `ndigits >= 0`.
pub fn round_int_digits(i: i64, ndigits: i64) -> i64 {
    if ndigits >= 0 {
        return i;
    }
    if ndigits < -19 {
        return 0;
    }
    let p = 10i128.pow((-ndigits) as u32);
    let v = i as i128;
    let q = v.div_euclid(p);
    let r = v.rem_euclid(p);
    let q = match (2 * r).cmp(&p) {
        std::cmp::Ordering::Greater => q + 1,
        std::cmp::Ordering::Equal if q % 2 != 0 => q + 1,
        _ => q,
    };
    // Wraps like every int result that does not fit.
    (q * p) as i64
}

// ---- the math module ----

/// The C library's `erf`/`erfc`, which CPython 3.11's `math.erf`/`math.erfc` call (std has
/// neither; the `libm` crate's port differs from glibc by an ulp on some arguments). Every
/// platform Rust's std supports links a C99 math library.
mod c_math {
    unsafe extern "C" {
        pub safe fn erf(x: f64) -> f64;
        pub safe fn erfc(x: f64) -> f64;
    }
}

/// CPython's `math_1`: a libm result of a one-argument function, checked. A NaN from a non-NaN
/// argument is a domain error; an infinity from a finite argument is a range error for
/// functions that can overflow and a domain error (a pole) for the others.
fn math_1(x: f64, r: f64, can_overflow: bool) -> Result<f64, PyErr> {
    if r.is_nan() && !x.is_nan() {
        return Err(domain());
    }
    if r.is_infinite() && x.is_finite() {
        return Err(if can_overflow { range_err() } else { domain() });
    }
    Ok(r)
}

/// CPython's `math_2`: a two-argument libm function, checked like [`math_1`].
fn math_2(x: f64, y: f64, r: f64) -> Result<f64, PyErr> {
    if r.is_nan() && !x.is_nan() && !y.is_nan() {
        return Err(domain());
    }
    if r.is_infinite() && x.is_finite() && y.is_finite() {
        return Err(range_err());
    }
    Ok(r)
}

/// CPython's `math_pow`.
fn math_pow(x: f64, y: f64) -> Result<f64, PyErr> {
    if !x.is_finite() || !y.is_finite() {
        return Ok(if x.is_nan() {
            if y == 0.0 { 1.0 } else { x }
        } else if y.is_nan() {
            if x == 1.0 { 1.0 } else { y }
        } else if x.is_infinite() {
            let odd = is_odd_integer(y);
            if y > 0.0 {
                if odd { x } else { x.abs() }
            } else if y == 0.0 {
                1.0
            } else if odd {
                0.0f64.copysign(x)
            } else {
                0.0
            }
        } else if x.abs() == 1.0 {
            1.0
        } else if (y > 0.0 && x.abs() > 1.0) || (y < 0.0 && x.abs() < 1.0) {
            f64::INFINITY
        } else {
            0.0
        });
    }
    let r = x.powf(y);
    if r.is_nan() {
        return Err(domain());
    }
    if r.is_infinite() {
        return Err(if x == 0.0 { domain() } else { range_err() });
    }
    Ok(r)
}

/// CPython's `math_fmod`.
fn math_fmod(x: f64, y: f64) -> Result<f64, PyErr> {
    if y.is_infinite() && x.is_finite() {
        return Ok(x);
    }
    let r = x % y;
    if r.is_nan() && !x.is_nan() && !y.is_nan() {
        return Err(domain());
    }
    Ok(r)
}

/// CPython 3.11's `math.hypot` of two values (`vector_norm`: scaled, with a compensated sum
/// and a final correction, so the result is correctly rounded in almost every case).
pub(crate) fn hypot(x: f64, y: f64) -> f64 {
    let (a, b) = (x.abs(), y.abs());
    if a.is_infinite() || b.is_infinite() {
        return f64::INFINITY;
    }
    if a.is_nan() || b.is_nan() {
        return f64::NAN;
    }
    vector_norm(&[a, b], a.max(b))
}

fn vector_norm(vec: &[f64], max: f64) -> f64 {
    if max == 0.0 || vec.len() <= 1 {
        return max;
    }
    let max_e = frexp_exp(max);
    if max_e < -1023 {
        // ldexp(1.0, -max_e) would overflow: scale subnormals up first.
        let scaled: Vec<f64> = vec.iter().map(|v| v / f64::MIN_POSITIVE).collect();
        return f64::MIN_POSITIVE * vector_norm(&scaled, max / f64::MIN_POSITIVE);
    }
    let scale = exp2i(-max_e);
    let (mut csum, mut frac1, mut frac2) = (1.0f64, 0.0f64, 0.0f64);
    for &v in vec {
        let x = v * scale;
        let (hi, lo) = dl_mul(x, x);
        let (shi, slo) = dl_fast_sum(csum, hi);
        csum = shi;
        frac1 += lo;
        frac2 += slo;
    }
    let mut h = (csum - 1.0 + (frac1 + frac2)).sqrt();
    let (hi, lo) = dl_mul(-h, h);
    let (shi, slo) = dl_fast_sum(csum, hi);
    csum = shi;
    frac1 += lo;
    frac2 += slo;
    let x = csum - 1.0 + (frac1 + frac2);
    h += x / (2.0 * h);
    h / scale
}

/// 2^k exactly, subnormal powers included (`powi` would overflow to a zero reciprocal).
fn exp2i(k: i32) -> f64 {
    if k > 1023 {
        f64::INFINITY
    } else if k >= -1022 {
        f64::from_bits(((k + 1023) as u64) << 52)
    } else if k >= -1074 {
        f64::from_bits(1u64 << (k + 1074))
    } else {
        0.0
    }
}

/// The exponent `frexp` returns (`x = m * 2^e`, `0.5 <= m < 1`) of a positive finite `x`.
fn frexp_exp(x: f64) -> i32 {
    let bits = x.to_bits();
    let e = ((bits >> 52) & 0x7ff) as i32;
    if e == 0 {
        // Subnormal: x = m · 2^-1074.
        let m = bits & ((1 << 52) - 1);
        return (64 - m.leading_zeros() as i32) - 1074;
    }
    e - 1022
}

fn dl_mul(x: f64, y: f64) -> (f64, f64) {
    let z = x * y;
    (z, x.mul_add(y, -z))
}

fn dl_fast_sum(a: f64, b: f64) -> (f64, f64) {
    let x = a + b;
    let z = x - a;
    (x, b - z)
}

/// CPython's `math.isclose(a, b)` with the default tolerances (`rel_tol=1e-09, abs_tol=0.0`).
pub(crate) fn isclose(a: f64, b: f64) -> bool {
    isclose_tol(a, b, 1e-9, 0.0)
}

/// CPython's `math.isclose`.
pub(crate) fn isclose_tol(a: f64, b: f64, rel_tol: f64, abs_tol: f64) -> bool {
    if a == b {
        return true;
    }
    if a.is_infinite() || b.is_infinite() {
        return false;
    }
    let diff = (b - a).abs();
    diff <= (rel_tol * b).abs() || diff <= (rel_tol * a).abs() || diff <= abs_tol
}

/// `math.factorial(n)`, wrapped to 64 bits like every int (66! and above have 64 factors of two,
/// so they wrap to 0).
pub fn factorial(n: i64) -> Result<i64, PyErr> {
    if n < 0 {
        return Err(err(
            ExcKind::ValueError,
            "factorial() not defined for negative values",
        ));
    }
    if n >= 66 {
        return Ok(0);
    }
    Ok((1..=n).fold(1i64, |a, b| a.wrapping_mul(b)))
}

/// `math.gcd(a, b)` (non-negative; `gcd(i64::MIN, 0)` wraps like every int).
pub fn gcd(a: i64, b: i64) -> i64 {
    let (mut a, mut b) = (a.unsigned_abs(), b.unsigned_abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a as i64
}

/// A `math` function of the IR on float operands (`y` is ignored by one-argument functions).
pub fn math(m: MathFn, x: f64, y: f64) -> Result<Value, PyErr> {
    let f = |r: Result<f64, PyErr>| r.map(Value::Float);
    match m {
        MathFn::Sqrt => f(math_1(x, x.sqrt(), false)),
        MathFn::Exp => f(math_1(x, x.exp(), true)),
        MathFn::Expm1 => f(math_1(x, x.exp_m1(), true)),
        MathFn::Log => f(math_1(x, x.ln(), false)),
        MathFn::Log2 => f(math_1(x, x.log2(), false)),
        MathFn::Log10 => f(math_1(x, x.log10(), false)),
        MathFn::Log1p => f(math_1(x, x.ln_1p(), false)),
        MathFn::Sin => f(math_1(x, x.sin(), false)),
        MathFn::Cos => f(math_1(x, x.cos(), false)),
        MathFn::Tan => f(math_1(x, x.tan(), false)),
        MathFn::Asin => f(math_1(x, x.asin(), false)),
        MathFn::Acos => f(math_1(x, x.acos(), false)),
        MathFn::Atan => f(math_1(x, x.atan(), false)),
        MathFn::Sinh => f(math_1(x, x.sinh(), true)),
        MathFn::Cosh => f(math_1(x, x.cosh(), true)),
        MathFn::Tanh => f(math_1(x, x.tanh(), false)),
        MathFn::Erf => f(math_1(x, c_math::erf(x), false)),
        MathFn::Erfc => f(math_1(x, c_math::erfc(x), false)),
        MathFn::Fabs => Ok(Value::Float(x.abs())),
        MathFn::Floor => float_to_int(x.floor()).map(Value::Int),
        MathFn::Ceil => float_to_int(x.ceil()).map(Value::Int),
        MathFn::Trunc => float_to_int(x.trunc()).map(Value::Int),
        MathFn::Round => round_float(x).map(Value::Int),
        MathFn::IsNan => Ok(Value::Bool(x.is_nan())),
        MathFn::IsInf => Ok(Value::Bool(x.is_infinite())),
        MathFn::IsFinite => Ok(Value::Bool(x.is_finite())),
        MathFn::Pow => f(math_pow(x, y)),
        MathFn::Atan2 => f(math_2(x, y, x.atan2(y))),
        MathFn::Fmod => f(math_fmod(x, y)),
        MathFn::Copysign => Ok(Value::Float(x.copysign(y))),
    }
}

/// A `math` function of the IR with a float result (what native code's host function returns).
pub fn math_float(m: MathFn, x: f64, y: f64) -> Result<f64, PyErr> {
    match math(m, x, y)? {
        Value::Float(r) => Ok(r),
        _ => Err(wrong_kind(m)),
    }
}

/// A `math` function of the IR with an int result (`floor`, `ceil`, `trunc`, `round`).
pub fn math_int(m: MathFn, x: f64) -> Result<i64, PyErr> {
    match math(m, x, 0.0)? {
        Value::Int(r) => Ok(r),
        _ => Err(wrong_kind(m)),
    }
}

fn wrong_kind(m: MathFn) -> PyErr {
    PyErr::new(
        ExcKind::Internal,
        format!("math.{} lowered with the wrong result kind", m.name()),
    )
}

/// How many positional arguments `math.NAME` takes (`log` takes one or two), or `None` for a
/// name the language does not have.
pub fn math_arity(name: &str) -> Option<std::ops::RangeInclusive<usize>> {
    if name == "log" {
        return Some(1..=2);
    }
    if let Some(m) = MathFn::from_name(name).filter(|m| *m != MathFn::Round) {
        let n = m.signature().0;
        return Some(n..=n);
    }
    match name {
        "hypot" | "isclose" | "gcd" => Some(2..=2),
        "degrees" | "radians" | "factorial" => Some(1..=1),
        _ => None,
    }
}

/// `math.NAME(*args)` on Python scalars (bools and ints convert as CPython converts them), for
/// the eager evaluator; `None` when the module has no such function or the arity is wrong.
pub fn math_call(name: &str, args: &[Value]) -> Option<Result<Value, PyErr>> {
    let arity = math_arity(name)?;
    if !arity.contains(&args.len()) {
        return None;
    }
    let as_int = |v: &Value| -> Result<i64, PyErr> {
        match v {
            Value::Int(i) => Ok(*i),
            Value::Bool(b) => Ok(*b as i64),
            other => Err(err(
                ExcKind::TypeError,
                &format!(
                    "'{}' object cannot be interpreted as an integer",
                    other.type_name()
                ),
            )),
        }
    };
    let as_float = |v: &Value| -> Result<f64, PyErr> {
        match v {
            Value::Int(i) => Ok(*i as f64),
            Value::Bool(b) => Ok(*b as u8 as f64),
            Value::Float(x) => Ok(*x),
            other => Err(err(
                ExcKind::TypeError,
                &format!("must be real number, not {}", other.type_name()),
            )),
        }
    };
    Some((|| {
        match name {
            "gcd" => return Ok(Value::Int(gcd(as_int(&args[0])?, as_int(&args[1])?))),
            "factorial" => return factorial(as_int(&args[0])?).map(Value::Int),
            // floor/ceil/trunc of an int is the int itself.
            "floor" | "ceil" | "trunc" if matches!(args[0], Value::Int(_) | Value::Bool(_)) => {
                return Ok(Value::Int(as_int(&args[0])?));
            }
            _ => {}
        }
        let x = as_float(&args[0])?;
        let y = match args.get(1) {
            Some(a) => as_float(a)?,
            None => 0.0,
        };
        match name {
            "log" if args.len() == 2 => {
                let num = math_1(x, x.ln(), false)?;
                let den = math_1(y, y.ln(), false)?;
                float_bin(FloatBinOp::Div, num, den).map(Value::Float)
            }
            "hypot" => Ok(Value::Float(hypot(x, y))),
            "degrees" => Ok(Value::Float(x * (180.0 / PI))),
            "radians" => Ok(Value::Float(x * (PI / 180.0))),
            "isclose" => Ok(Value::Bool(isclose(x, y))),
            _ => match MathFn::from_name(name) {
                Some(m) => math(m, x, y),
                None => Err(err(
                    ExcKind::AttributeError,
                    &format!("module 'math' has no attribute '{name}'"),
                )),
            },
        }
    })())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn int_floor_semantics() {
        let fd = |a, b| int_bin(IntBinOp::FloorDiv, a, b).unwrap();
        let md = |a, b| int_bin(IntBinOp::Mod, a, b).unwrap();
        assert_eq!((fd(7, 2), md(7, 2)), (3, 1));
        assert_eq!((fd(-7, 2), md(-7, 2)), (-4, 1));
        assert_eq!((fd(7, -2), md(7, -2)), (-4, -1));
        assert_eq!((fd(-7, -2), md(-7, -2)), (3, -1));
        assert_eq!(fd(i64::MIN, -1), i64::MIN);
        assert_eq!(md(i64::MIN, -1), 0);
        assert_eq!(
            int_bin(IntBinOp::FloorDiv, 1, 0).unwrap_err().message,
            "integer division or modulo by zero"
        );
        assert_eq!(int_bin(IntBinOp::Pow, 2, 64).unwrap(), 0);
        assert_eq!(
            int_bin(IntBinOp::Pow, 2, -1).unwrap_err().message,
            "2 ** -1: an int to a negative int power is a float in Python, but `int ** int` is \
             typed int here; convert the base for the float result: float(2) ** -1 == 0.5"
        );
        assert_eq!(int_bin(IntBinOp::Shr, -5, 70).unwrap(), -1);
    }

    #[test]
    fn true_division_of_ints_rounds_once() {
        // 2^53 + 1 does not convert exactly; CPython divides the exact integers.
        assert_eq!(
            int_truediv(9007199254740993, 3).unwrap(),
            3002399751580331.0
        );
        assert_eq!(int_truediv(i64::MIN, -1).unwrap(), 2f64.powi(63));
        assert_eq!(int_truediv(7, 2).unwrap(), 3.5);
        assert_eq!(int_truediv(1, 0).unwrap_err().message, "division by zero");
    }

    #[test]
    fn rounding_like_cpython() {
        assert_eq!(round_float_digits(2.675, 2).unwrap(), 2.67);
        assert_eq!(round_float_digits(0.125, 2).unwrap(), 0.12);
        assert_eq!(round_float_digits(0.375, 2).unwrap(), 0.38);
        assert_eq!(round_float_digits(1234.5, -2).unwrap(), 1200.0);
        assert_eq!(round_float_digits(500.0, -3).unwrap(), 0.0);
        assert_eq!(round_float_digits(501.0, -3).unwrap(), 1000.0);
        assert_eq!(
            round_float_digits(-0.4, 0).unwrap().to_bits(),
            (-0.0f64).to_bits()
        );
        assert_eq!(round_int_digits(25, -1), 20);
        assert_eq!(round_int_digits(35, -1), 40);
        assert_eq!(round_int_digits(-25, -1), -20);
        assert_eq!(round_float(2.5).unwrap(), 2);
    }

    #[test]
    fn math_domain_and_range() {
        let e = |m, x| math(m, x, 0.0).unwrap_err();
        assert_eq!(e(MathFn::Cos, f64::INFINITY).message, "math domain error");
        assert_eq!(e(MathFn::Sin, f64::INFINITY).kind, ExcKind::ValueError);
        assert_eq!(e(MathFn::Sinh, 1000.0).kind, ExcKind::OverflowError);
        assert!(math(MathFn::Fmod, f64::INFINITY, 1.0).is_err());
        assert!(
            matches!(math(MathFn::Pow, 0.0, f64::NEG_INFINITY), Ok(Value::Float(r)) if r == f64::INFINITY)
        );
        assert!(math(MathFn::Pow, 0.0, -1.0).is_err());
        assert_eq!(hypot(3.0, 4.0), 5.0);
        assert!(isclose(1.0, 1.0 + 1e-10));
    }
}
