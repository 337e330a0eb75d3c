//! Python's semantics for `int`, `float` and `bool` ops and the `math` module, with Python's
//! exception classes and messages (CPython 3.11 wording).

use crate::value::Value;
use pyjit_ir::{BoolBinOp, CmpOp, FloatBinOp, FloatUnOp, IntBinOp, IntUnOp, MathFn};

/// An exception: class and message.
#[derive(Debug, PartialEq)]
pub struct PyErr(pub &'static str, pub String);

fn err(class: &'static str, msg: &str) -> PyErr {
    PyErr(class, msg.to_string())
}

pub fn int_bin(op: IntBinOp, a: i64, b: i64) -> Result<i64, PyErr> {
    Ok(match op {
        IntBinOp::Add => a.wrapping_add(b),
        IntBinOp::Sub => a.wrapping_sub(b),
        IntBinOp::Mul => a.wrapping_mul(b),
        IntBinOp::FloorDiv => {
            if b == 0 {
                return Err(err(
                    "ZeroDivisionError",
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
                return Err(err("ZeroDivisionError", "integer modulo by zero"));
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
                return Err(err(
                    "ValueError",
                    "integer to a negative power is not supported (use a float base)",
                ));
            }
            let (mut base, mut e, mut acc) = (a, b as u64, 1i64);
            while e > 0 {
                if e & 1 == 1 {
                    acc = acc.wrapping_mul(base);
                }
                base = base.wrapping_mul(base);
                e >>= 1;
            }
            acc
        }
        IntBinOp::BitAnd => a & b,
        IntBinOp::BitOr => a | b,
        IntBinOp::BitXor => a ^ b,
        IntBinOp::Shl => {
            if b < 0 {
                return Err(err("ValueError", "negative shift count"));
            }
            if b >= 64 { 0 } else { a.wrapping_shl(b as u32) }
        }
        IntBinOp::Shr => {
            if b < 0 {
                return Err(err("ValueError", "negative shift count"));
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

/// `from_ints`: both operands were ints converted for true division (changes one message).
pub fn float_bin(op: FloatBinOp, a: f64, b: f64, from_ints: bool) -> Result<f64, PyErr> {
    Ok(match op {
        FloatBinOp::Add => a + b,
        FloatBinOp::Sub => a - b,
        FloatBinOp::Mul => a * b,
        FloatBinOp::Div => {
            if b == 0.0 {
                let msg = if from_ints {
                    "division by zero"
                } else {
                    "float division by zero"
                };
                return Err(err("ZeroDivisionError", msg));
            }
            a / b
        }
        FloatBinOp::FloorDiv => {
            if b == 0.0 {
                return Err(err("ZeroDivisionError", "float floor division by zero"));
            }
            py_divmod(a, b).0
        }
        FloatBinOp::Mod => {
            if b == 0.0 {
                return Err(err("ZeroDivisionError", "float modulo"));
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

fn float_pow(a: f64, b: f64) -> Result<f64, PyErr> {
    if a == 0.0 && b < 0.0 && b.is_finite() {
        return Err(err(
            "ZeroDivisionError",
            "0.0 cannot be raised to a negative power",
        ));
    }
    if a < 0.0 && a.is_finite() && b.is_finite() && b.fract() != 0.0 {
        // CPython returns a complex number here; the language has none.
        return Err(err(
            "ValueError",
            "a negative number cannot be raised to a fractional power",
        ));
    }
    let r = a.powf(b);
    if r.is_infinite() && a.is_finite() && b.is_finite() {
        return Err(err(
            "OverflowError",
            "(34, 'Numerical result out of range')",
        ));
    }
    Ok(r)
}

pub fn float_un(op: FloatUnOp, a: f64) -> f64 {
    match op {
        FloatUnOp::Neg => -a,
        FloatUnOp::Abs => a.abs(),
    }
}

pub fn cmp<T: PartialOrd>(op: CmpOp, a: T, b: T) -> bool {
    match op {
        CmpOp::Eq => a == b,
        CmpOp::Ne => a != b,
        CmpOp::Lt => a < b,
        CmpOp::Le => a <= b,
        CmpOp::Gt => a > b,
        CmpOp::Ge => a >= b,
    }
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
        return Err(err("ValueError", "cannot convert float NaN to integer"));
    }
    if x.is_infinite() {
        return Err(err(
            "OverflowError",
            "cannot convert float infinity to integer",
        ));
    }
    let t = x.trunc();
    // i64::MIN is exactly representable; 2^63 is not an i64.
    if !(-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&t) {
        return Err(err(
            "OverflowError",
            "int too large to convert to a 64-bit int",
        ));
    }
    Ok(t as i64)
}

fn domain() -> PyErr {
    err("ValueError", "math domain error")
}

fn range_err() -> PyErr {
    err("OverflowError", "math range error")
}

/// A finite-argument result that overflowed to infinity is a range error, as in CPython.
fn checked(x: f64, r: f64) -> Result<f64, PyErr> {
    if r.is_infinite() && x.is_finite() {
        Err(range_err())
    } else {
        Ok(r)
    }
}

pub fn math(m: MathFn, x: f64, y: f64) -> Result<Value, PyErr> {
    let f = |v: f64| Ok(Value::Float(v));
    match m {
        MathFn::Sqrt => {
            if x < 0.0 {
                return Err(domain());
            }
            f(x.sqrt())
        }
        MathFn::Exp => f(checked(x, x.exp())?),
        MathFn::Expm1 => f(checked(x, x.exp_m1())?),
        MathFn::Log | MathFn::Log2 | MathFn::Log10 => {
            if x <= 0.0 {
                return Err(domain());
            }
            f(match m {
                MathFn::Log => x.ln(),
                MathFn::Log2 => x.log2(),
                _ => x.log10(),
            })
        }
        MathFn::Log1p => {
            if x <= -1.0 {
                return Err(domain());
            }
            f(x.ln_1p())
        }
        MathFn::Sin | MathFn::Cos | MathFn::Tan => {
            if x.is_infinite() {
                return Err(domain());
            }
            f(match m {
                MathFn::Sin => x.sin(),
                MathFn::Cos => x.cos(),
                _ => x.tan(),
            })
        }
        MathFn::Asin | MathFn::Acos => {
            if !(-1.0..=1.0).contains(&x) && !x.is_nan() {
                return Err(domain());
            }
            f(if m == MathFn::Asin {
                x.asin()
            } else {
                x.acos()
            })
        }
        MathFn::Atan => f(x.atan()),
        MathFn::Sinh => f(checked(x, x.sinh())?),
        MathFn::Cosh => f(checked(x, x.cosh())?),
        MathFn::Tanh => f(x.tanh()),
        MathFn::Erf => f(libm::erf(x)),
        MathFn::Erfc => f(libm::erfc(x)),
        MathFn::Fabs => f(x.abs()),
        MathFn::Floor => Ok(Value::Int(float_to_int(x.floor())?)),
        MathFn::Ceil => Ok(Value::Int(float_to_int(x.ceil())?)),
        MathFn::Trunc => Ok(Value::Int(float_to_int(x.trunc())?)),
        MathFn::Round => Ok(Value::Int(float_to_int(x.round_ties_even())?)),
        MathFn::IsNan => Ok(Value::Bool(x.is_nan())),
        MathFn::IsInf => Ok(Value::Bool(x.is_infinite())),
        MathFn::IsFinite => Ok(Value::Bool(x.is_finite())),
        MathFn::Pow => {
            // math.pow differs from `**`: a zero base with a negative exponent is a domain error.
            if x == 0.0 && y < 0.0 && y.is_finite() {
                return Err(domain());
            }
            if x < 0.0 && x.is_finite() && y.is_finite() && y.fract() != 0.0 {
                return Err(domain());
            }
            let r = x.powf(y);
            f(if r.is_infinite() && x.is_finite() && y.is_finite() {
                return Err(range_err());
            } else {
                r
            })
        }
        MathFn::Atan2 => f(x.atan2(y)),
        MathFn::Fmod => {
            if (y == 0.0 || x.is_infinite()) && !x.is_nan() && !y.is_nan() {
                return Err(domain());
            }
            f(x % y)
        }
        MathFn::Copysign => f(x.copysign(y)),
    }
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
            int_bin(IntBinOp::FloorDiv, 1, 0).unwrap_err().1,
            "integer division or modulo by zero"
        );
        assert_eq!(
            int_bin(IntBinOp::Mod, 1, 0).unwrap_err().1,
            "integer modulo by zero"
        );
        assert_eq!(int_bin(IntBinOp::Pow, 3, 13).unwrap(), 1594323);
        assert_eq!(int_bin(IntBinOp::Pow, 2, 64).unwrap(), 0);
        assert_eq!(int_bin(IntBinOp::Add, i64::MAX, 1).unwrap(), i64::MIN);
        assert_eq!(int_bin(IntBinOp::Shr, -5, 70).unwrap(), -1);
        assert!(int_bin(IntBinOp::Shl, 1, -1).is_err());
    }

    #[test]
    fn float_semantics() {
        let fb = |op, a, b| float_bin(op, a, b, false).unwrap();
        assert_eq!(fb(FloatBinOp::FloorDiv, 7.5, -2.0), -4.0);
        assert_eq!(fb(FloatBinOp::Mod, 7.5, -2.0), -0.5);
        assert_eq!(fb(FloatBinOp::Mod, -0.0, 3.0).to_bits(), 0.0f64.to_bits());
        assert_eq!(fb(FloatBinOp::FloorDiv, -1.0, f64::INFINITY), -1.0);
        assert_eq!(
            float_bin(FloatBinOp::Div, 1.0, 0.0, false).unwrap_err().1,
            "float division by zero"
        );
        assert_eq!(
            float_bin(FloatBinOp::Div, 1.0, 0.0, true).unwrap_err().1,
            "division by zero"
        );
        assert!(float_bin(FloatBinOp::Pow, -8.0, 1.0 / 3.0, false).is_err());
        assert_eq!(fb(FloatBinOp::Pow, -2.0, 3.0), -8.0);
        assert_eq!(float_to_int(-2.7).unwrap(), -2);
        assert!(float_to_int(f64::NAN).is_err());
        assert!(float_to_int(1e19).is_err());
    }

    #[test]
    fn math_module() {
        assert_eq!(
            math(MathFn::Sqrt, -1.0, 0.0).unwrap_err().1,
            "math domain error"
        );
        assert!(matches!(
            math(MathFn::Round, 2.5, 0.0).unwrap(),
            Value::Int(2)
        ));
        assert!(matches!(
            math(MathFn::Round, 3.5, 0.0).unwrap(),
            Value::Int(4)
        ));
        assert!(matches!(
            math(MathFn::Floor, -0.5, 0.0).unwrap(),
            Value::Int(-1)
        ));
        assert_eq!(
            math(MathFn::Exp, 1000.0, 0.0).unwrap_err().0,
            "OverflowError"
        );
        assert!(math(MathFn::Log, 0.0, 0.0).is_err());
        assert!(matches!(math(MathFn::Erf, 0.0, 0.0).unwrap(), Value::Float(x) if x == 0.0));
    }
}
