//! Python's semantics for the scalar ops native code does not inline (float `//`, `%`, `**`,
//! int `**`, `int(float)`, the `math` module), with CPython's exception classes and messages.
//!
//! These are thin adapters over the interpreter's own scalar semantics
//! (`pyjit_interp::scalar`), so native code and the interpreter compute every value and raise every
//! message through one implementation; only the shape of the results differs (native code wants
//! unboxed `f64`/`i64`).

use pyjit_interp::Value;
use pyjit_interp::scalar;
use pyjit_ir::{FloatBinOp, IntBinOp, MathFn};

pub(crate) use pyjit_interp::scalar::PyErr;

pub(crate) fn int_pow(a: i64, b: i64) -> Result<i64, PyErr> {
    scalar::int_bin(IntBinOp::Pow, a, b)
}

pub(crate) fn float_floordiv(a: f64, b: f64) -> Result<f64, PyErr> {
    scalar::float_bin(FloatBinOp::FloorDiv, a, b, false)
}

pub(crate) fn float_mod(a: f64, b: f64) -> Result<f64, PyErr> {
    scalar::float_bin(FloatBinOp::Mod, a, b, false)
}

pub(crate) fn float_pow(a: f64, b: f64) -> Result<f64, PyErr> {
    scalar::float_bin(FloatBinOp::Pow, a, b, false)
}

pub(crate) fn float_to_int(x: f64) -> Result<i64, PyErr> {
    scalar::float_to_int(x)
}

fn wrong_kind() -> PyErr {
    PyErr(
        "InternalError",
        "math function lowered with the wrong result kind".to_string(),
    )
}

/// `math` functions returning a float.
pub(crate) fn math_float(m: MathFn, x: f64, y: f64) -> Result<f64, PyErr> {
    match scalar::math(m, x, y)? {
        Value::Float(f) => Ok(f),
        _ => Err(wrong_kind()),
    }
}

/// `math.floor/ceil/trunc` and `round`: float → int.
pub(crate) fn math_int(m: MathFn, x: f64) -> Result<i64, PyErr> {
    match scalar::math(m, x, 0.0)? {
        Value::Int(i) => Ok(i),
        _ => Err(wrong_kind()),
    }
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
        assert_eq!(math_float(MathFn::Floor, 1.5, 0.0), Err(wrong_kind()));
    }
}
