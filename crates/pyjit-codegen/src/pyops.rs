//! Python's semantics for the scalar ops native code does not inline (float `//`, `%`, `**`,
//! int `**`, `int(float)`, the `math` module), with CPython's exception classes and messages.
//!
//! These follow `pyjit-interp`'s scalar module line for line (that module is private to the
//! interpreter); the differential tests hold the two to identical results and messages.

use pyjit_ir::MathFn;

/// An exception: class and message.
#[derive(Debug, PartialEq)]
pub(crate) struct PyErr(pub &'static str, pub String);

fn err(class: &'static str, msg: &str) -> PyErr {
    PyErr(class, msg.to_string())
}

pub(crate) fn int_pow(a: i64, b: i64) -> Result<i64, PyErr> {
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
    Ok(acc)
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

pub(crate) fn float_floordiv(a: f64, b: f64) -> Result<f64, PyErr> {
    if b == 0.0 {
        return Err(err("ZeroDivisionError", "float floor division by zero"));
    }
    Ok(py_divmod(a, b).0)
}

pub(crate) fn float_mod(a: f64, b: f64) -> Result<f64, PyErr> {
    if b == 0.0 {
        return Err(err("ZeroDivisionError", "float modulo"));
    }
    Ok(py_divmod(a, b).1)
}

pub(crate) fn float_pow(a: f64, b: f64) -> Result<f64, PyErr> {
    if a == 0.0 && b < 0.0 && b.is_finite() {
        return Err(err(
            "ZeroDivisionError",
            "0.0 cannot be raised to a negative power",
        ));
    }
    if a < 0.0 && a.is_finite() && b.is_finite() && b.fract() != 0.0 {
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

/// Python's `int(x)` of a float: truncation toward zero.
pub(crate) fn float_to_int(x: f64) -> Result<i64, PyErr> {
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

fn checked(x: f64, r: f64) -> Result<f64, PyErr> {
    if r.is_infinite() && x.is_finite() {
        Err(range_err())
    } else {
        Ok(r)
    }
}

/// `math` functions returning a float.
pub(crate) fn math_float(m: MathFn, x: f64, y: f64) -> Result<f64, PyErr> {
    Ok(match m {
        MathFn::Sqrt => {
            if x < 0.0 {
                return Err(domain());
            }
            x.sqrt()
        }
        MathFn::Exp => checked(x, x.exp())?,
        MathFn::Expm1 => checked(x, x.exp_m1())?,
        MathFn::Log | MathFn::Log2 | MathFn::Log10 => {
            if x <= 0.0 {
                return Err(domain());
            }
            match m {
                MathFn::Log => x.ln(),
                MathFn::Log2 => x.log2(),
                _ => x.log10(),
            }
        }
        MathFn::Log1p => {
            if x <= -1.0 {
                return Err(domain());
            }
            x.ln_1p()
        }
        MathFn::Sin | MathFn::Cos | MathFn::Tan => {
            if x.is_infinite() {
                return Err(domain());
            }
            match m {
                MathFn::Sin => x.sin(),
                MathFn::Cos => x.cos(),
                _ => x.tan(),
            }
        }
        MathFn::Asin | MathFn::Acos => {
            if !(-1.0..=1.0).contains(&x) && !x.is_nan() {
                return Err(domain());
            }
            if m == MathFn::Asin {
                x.asin()
            } else {
                x.acos()
            }
        }
        MathFn::Atan => x.atan(),
        MathFn::Sinh => checked(x, x.sinh())?,
        MathFn::Cosh => checked(x, x.cosh())?,
        MathFn::Tanh => x.tanh(),
        MathFn::Erf => libm::erf(x),
        MathFn::Erfc => libm::erfc(x),
        MathFn::Fabs => x.abs(),
        MathFn::Pow => {
            if x == 0.0 && y < 0.0 && y.is_finite() {
                return Err(domain());
            }
            if x < 0.0 && x.is_finite() && y.is_finite() && y.fract() != 0.0 {
                return Err(domain());
            }
            let r = x.powf(y);
            if r.is_infinite() && x.is_finite() && y.is_finite() {
                return Err(range_err());
            }
            r
        }
        MathFn::Atan2 => x.atan2(y),
        MathFn::Fmod => {
            if (y == 0.0 || x.is_infinite()) && !x.is_nan() && !y.is_nan() {
                return Err(domain());
            }
            x % y
        }
        MathFn::Copysign => x.copysign(y),
        // Int and bool results are lowered elsewhere; reaching here is a codegen bug.
        _ => {
            return Err(err(
                "InternalError",
                "math function with a non-float result",
            ));
        }
    })
}

/// `math.floor/ceil/trunc` and `round`: float → int.
pub(crate) fn math_int(m: MathFn, x: f64) -> Result<i64, PyErr> {
    float_to_int(match m {
        MathFn::Floor => x.floor(),
        MathFn::Ceil => x.ceil(),
        MathFn::Trunc => x.trunc(),
        MathFn::Round => x.round_ties_even(),
        _ => return Err(err("InternalError", "math function without an int result")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_floor_semantics() {
        assert_eq!(float_floordiv(7.5, -2.0).unwrap(), -4.0);
        assert_eq!(float_mod(7.5, -2.0).unwrap(), -0.5);
        assert_eq!(float_mod(-0.0, 3.0).unwrap().to_bits(), 0.0f64.to_bits());
        assert_eq!(float_floordiv(-1.0, f64::INFINITY).unwrap(), -1.0);
        assert_eq!(float_mod(1.0, 0.0).unwrap_err().1, "float modulo");
        assert!(float_pow(-8.0, 1.0 / 3.0).is_err());
        assert_eq!(int_pow(3, 13).unwrap(), 1594323);
        assert_eq!(int_pow(2, 64).unwrap(), 0);
        assert_eq!(math_int(MathFn::Round, 2.5).unwrap(), 2);
        assert_eq!(math_int(MathFn::Floor, -0.5).unwrap(), -1);
        assert_eq!(
            math_float(MathFn::Sqrt, -1.0, 0.0).unwrap_err().1,
            "math domain error"
        );
    }
}
