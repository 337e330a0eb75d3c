//! Elementwise ops: broadcasting, PyTorch type promotion, integer floor semantics, NaN rules.

use super::vmath::{self, Unary, k as vk};
use super::{any_elem, map_binary, map_ternary, map_unary};
use crate::dtype::{DEFAULT_FLOAT, DType};
use crate::error::{Result, RuntimeError};
use crate::promotion::{Operand, result_type};
use crate::tensor::Tensor;
use crate::value::Scalar;
use std::borrow::Cow;

/// A binary op operand: a tensor or a Python scalar (weak in promotion).
#[derive(Clone, Copy, Debug)]
pub enum Input<'a> {
    T(&'a Tensor),
    S(Scalar),
}

impl Input<'_> {
    fn operand(&self) -> Operand {
        match self {
            Input::T(t) => Operand::of(t),
            Input::S(s) => Operand::Scalar(*s),
        }
    }

    fn is_bool(&self) -> bool {
        match self {
            Input::T(t) => t.dtype() == DType::Bool,
            Input::S(s) => matches!(s, Scalar::Bool(_)),
        }
    }

    /// As a tensor of `dtype` (a scalar becomes a 0-d tensor; a tensor is borrowed as is and
    /// converted lazily by the kernels).
    fn tensor(&self, dtype: DType) -> Cow<'_, Tensor> {
        match self {
            Input::T(t) => Cow::Borrowed(*t),
            Input::S(s) => Cow::Owned(Tensor::scalar_typed(*s, dtype)),
        }
    }
}

/// A comparison of two values of one type, result `bool`: of tensor elements here, of Python
/// scalars in the IR (`pyjit_ir::CmpOp` is this type). Float comparisons are IEEE (every
/// comparison with NaN is false except `ne`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CmpOp {
    /// Every comparison, in declaration order.
    pub const ALL: [CmpOp; 6] = [
        CmpOp::Eq,
        CmpOp::Ne,
        CmpOp::Lt,
        CmpOp::Le,
        CmpOp::Gt,
        CmpOp::Ge,
    ];

    /// `a op b` (IEEE on floats, as `PartialOrd` compares them).
    #[inline(always)]
    pub fn eval<T: PartialOrd>(self, a: T, b: T) -> bool {
        match self {
            CmpOp::Eq => a == b,
            CmpOp::Ne => a != b,
            CmpOp::Lt => a < b,
            CmpOp::Le => a <= b,
            CmpOp::Gt => a > b,
            CmpOp::Ge => a >= b,
        }
    }

    /// The name of the op (`eq`, `ne`, `lt`, `le`, `gt`, `ge`).
    pub fn name(self) -> &'static str {
        match self {
            CmpOp::Eq => "eq",
            CmpOp::Ne => "ne",
            CmpOp::Lt => "lt",
            CmpOp::Le => "le",
            CmpOp::Gt => "gt",
            CmpOp::Ge => "ge",
        }
    }

    /// The comparison with its operands swapped: `a < b` is `b > a`.
    pub fn swapped(self) -> CmpOp {
        match self {
            CmpOp::Lt => CmpOp::Gt,
            CmpOp::Le => CmpOp::Ge,
            CmpOp::Gt => CmpOp::Lt,
            CmpOp::Ge => CmpOp::Le,
            eq_or_ne => eq_or_ne,
        }
    }
}

/// The binary elementwise ops.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    /// True division (`/`): int and bool inputs give the default float dtype.
    Div,
    /// Division rounding toward zero (`div(rounding_mode='trunc')`).
    DivTrunc,
    /// Floor division (`//`, `div(rounding_mode='floor')`).
    DivFloor,
    /// Python `%`: the result has the sign of the divisor.
    Remainder,
    /// C `fmod`: the result has the sign of the dividend.
    Fmod,
    Pow,
    Atan2,
    Maximum,
    Minimum,
    /// A comparison; the result is bool.
    Cmp(CmpOp),
    LogicalAnd,
    LogicalOr,
    LogicalXor,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
}

fn float_of(d: DType) -> DType {
    if d.is_float() { d } else { DEFAULT_FLOAT }
}

fn int_zero_check<T: PartialEq + Copy + crate::element::Element>(b: &Tensor) -> Result<()> {
    if any_elem::<T>(b, |x| x.to_i64() == 0) {
        return Err(RuntimeError::ZeroDivision);
    }
    Ok(())
}

/// Python's float floor division (PyTorch's `div_floor_floating`) on `$t`, as `$name`.
macro_rules! div_floor {
    ($name:ident, $t:ty) => {
        #[inline]
        fn $name(a: $t, b: $t) -> $t {
            if b == 0.0 {
                return a / b;
            }
            let m = a % b;
            let mut div = (a - m) / b;
            if m != 0.0 && ((b < 0.0) != (m < 0.0)) {
                div -= 1.0;
            }
            if div != 0.0 {
                let mut f = div.floor();
                if div - f > 0.5 {
                    f += 1.0;
                }
                f
            } else {
                <$t>::copysign(0.0, a / b)
            }
        }
    };
}

div_floor!(div_floor_f64, f64);
div_floor!(div_floor_f32, f32);

macro_rules! int_floor_div {
    ($a:expr, $b:expr) => {{
        let (a, b) = ($a, $b);
        let q = a.wrapping_div(b);
        if a.wrapping_rem(b) != 0 && ((a < 0) != (b < 0)) {
            q.wrapping_sub(1)
        } else {
            q
        }
    }};
}

macro_rules! int_remainder {
    ($a:expr, $b:expr) => {{
        let (a, b) = ($a, $b);
        let r = a.wrapping_rem(b);
        if r != 0 && ((r < 0) != (b < 0)) {
            r.wrapping_add(b)
        } else {
            r
        }
    }};
}

/// `map_binary` of the int type `$T` after checking that the divisor `$y` holds no zero
/// (`ZeroDivisionError`).
macro_rules! nonzero_int_binary {
    ($T:ty, $x:expr, $y:expr, |$p:ident, $q:ident| $e:expr) => {{
        int_zero_check::<$T>($y)?;
        map_binary::<$T, $T>($x, $y, |$p, $q| $e)
    }};
}

/// Python's float `%`: the remainder has the divisor's sign.
macro_rules! float_remainder {
    ($a:expr, $b:expr) => {{
        let (p, q) = ($a, $b);
        let m = p % q;
        if m != 0.0 && ((q < 0.0) != (m < 0.0)) {
            m + q
        } else {
            m
        }
    }};
}

macro_rules! int_pow {
    ($t:ty, $a:expr, $b:expr) => {{
        let (a, b): ($t, $t) = ($a, $b);
        if b < 0 {
            match a {
                1 => 1,
                -1 => {
                    if b % 2 == 0 {
                        1
                    } else {
                        -1
                    }
                }
                _ => 0,
            }
        } else {
            let mut base = a;
            let mut e = b as u64;
            let mut acc: $t = 1;
            while e > 0 {
                if e & 1 == 1 {
                    acc = acc.wrapping_mul(base);
                }
                base = base.wrapping_mul(base);
                e >>= 1;
            }
            acc
        }
    }};
}

macro_rules! shl {
    ($t:ty, $a:expr, $b:expr) => {{
        let (a, b): ($t, $t) = ($a, $b);
        if b < 0 || b as u64 >= <$t>::BITS as u64 {
            0
        } else {
            a.wrapping_shl(b as u32)
        }
    }};
}

macro_rules! shr {
    ($t:ty, $a:expr, $b:expr) => {{
        let (a, b): ($t, $t) = ($a, $b);
        if b < 0 || b as u64 >= <$t>::BITS as u64 {
            if a < 0 { -1 } else { 0 }
        } else {
            a.wrapping_shr(b as u32)
        }
    }};
}

/// Applies a binary op with PyTorch's broadcasting and type promotion.
pub fn binary(op: BinaryOp, a: Input<'_>, b: Input<'_>) -> Result<Tensor> {
    use BinaryOp::*;
    let common = result_type(&[a.operand(), b.operand()])
        .ok_or_else(|| RuntimeError::Value("no operands".into()))?;
    if op == Sub && (a.is_bool() || b.is_bool()) {
        return Err(RuntimeError::NotImplemented(
            if a.is_bool() && b.is_bool() {
                "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` operator instead.".into()
            } else {
                "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.".into()
            },
        ));
    }
    let compute = match op {
        Div | Atan2 => float_of(common),
        _ => common,
    };
    let x = a.tensor(compute);
    if op == Pow
        && compute.is_float()
        && let (Input::T(_), Input::S(e)) = (&a, &b)
        && let Some(r) = pow_by_other_kernels(&x, e.to_f64())
    {
        return r;
    }
    let y = b.tensor(compute);
    if let Some(r) = float_arith_fast(op, &x, &y, compute) {
        return r;
    }
    let nyi = |kernel: &str| Err(RuntimeError::not_implemented_for(kernel, compute));
    match op {
        Add => match compute {
            DType::Bool => map_binary::<bool, bool>(&x, &y, |p, q| p | q),
            DType::Int32 => map_binary::<i32, i32>(&x, &y, |p, q| p.wrapping_add(q)),
            DType::Int64 => map_binary::<i64, i64>(&x, &y, |p, q| p.wrapping_add(q)),
            DType::Float32 => map_binary::<f32, f32>(&x, &y, |p, q| p + q),
            DType::Float64 => map_binary::<f64, f64>(&x, &y, |p, q| p + q),
        },
        Sub => match compute {
            DType::Int32 => map_binary::<i32, i32>(&x, &y, |p, q| p.wrapping_sub(q)),
            DType::Int64 => map_binary::<i64, i64>(&x, &y, |p, q| p.wrapping_sub(q)),
            DType::Float32 => map_binary::<f32, f32>(&x, &y, |p, q| p - q),
            DType::Float64 => map_binary::<f64, f64>(&x, &y, |p, q| p - q),
            DType::Bool => nyi("sub"),
        },
        Mul => match compute {
            DType::Bool => map_binary::<bool, bool>(&x, &y, |p, q| p & q),
            DType::Int32 => map_binary::<i32, i32>(&x, &y, |p, q| p.wrapping_mul(q)),
            DType::Int64 => map_binary::<i64, i64>(&x, &y, |p, q| p.wrapping_mul(q)),
            DType::Float32 => map_binary::<f32, f32>(&x, &y, |p, q| p * q),
            DType::Float64 => map_binary::<f64, f64>(&x, &y, |p, q| p * q),
        },
        Div => match compute {
            DType::Float32 => map_binary::<f32, f32>(&x, &y, |p, q| p / q),
            _ => map_binary::<f64, f64>(&x, &y, |p, q| p / q),
        },
        DivTrunc => match compute {
            DType::Int32 => nonzero_int_binary!(i32, &x, &y, |p, q| p.wrapping_div(q)),
            DType::Int64 => nonzero_int_binary!(i64, &x, &y, |p, q| p.wrapping_div(q)),
            DType::Float32 => map_binary::<f32, f32>(&x, &y, |p, q| (p / q).trunc()),
            DType::Float64 => map_binary::<f64, f64>(&x, &y, |p, q| (p / q).trunc()),
            DType::Bool => nyi("div_trunc_cpu"),
        },
        DivFloor => match compute {
            DType::Int32 => nonzero_int_binary!(i32, &x, &y, |p, q| int_floor_div!(p, q)),
            DType::Int64 => nonzero_int_binary!(i64, &x, &y, |p, q| int_floor_div!(p, q)),
            DType::Float32 => map_binary::<f32, f32>(&x, &y, div_floor_f32),
            DType::Float64 => map_binary::<f64, f64>(&x, &y, div_floor_f64),
            DType::Bool => nyi("div_floor_cpu"),
        },
        Remainder => match compute {
            DType::Int32 => nonzero_int_binary!(i32, &x, &y, |p, q| int_remainder!(p, q)),
            DType::Int64 => nonzero_int_binary!(i64, &x, &y, |p, q| int_remainder!(p, q)),
            DType::Float32 => map_binary::<f32, f32>(&x, &y, |p, q| float_remainder!(p, q)),
            DType::Float64 => map_binary::<f64, f64>(&x, &y, |p, q| float_remainder!(p, q)),
            DType::Bool => nyi("remainder_cpu"),
        },
        Fmod => match compute {
            DType::Int32 => nonzero_int_binary!(i32, &x, &y, |p, q| p.wrapping_rem(q)),
            DType::Int64 => nonzero_int_binary!(i64, &x, &y, |p, q| p.wrapping_rem(q)),
            DType::Float32 => map_binary::<f32, f32>(&x, &y, |p, q| p % q),
            DType::Float64 => map_binary::<f64, f64>(&x, &y, |p, q| p % q),
            DType::Bool => nyi("fmod_cpu"),
        },
        Pow => {
            if compute.is_int()
                && let Input::S(s) = b
                && s.to_i64() < 0
            {
                return Err(RuntimeError::Value(
                    "Integers to negative integer powers are not allowed.".into(),
                ));
            }
            match compute {
                DType::Int32 => map_binary::<i32, i32>(&x, &y, |p, q| int_pow!(i32, p, q)),
                DType::Int64 => map_binary::<i64, i64>(&x, &y, |p, q| int_pow!(i64, p, q)),
                // Broadcast operands: the vector kernel's scalar definition, same bits.
                DType::Float32 => {
                    map_binary::<f32, f32>(&x, &y, |p, q| vmath::eval_binary(vk::Pow, p, q))
                }
                DType::Float64 => {
                    map_binary::<f64, f64>(&x, &y, |p, q| vmath::eval_binary(vk::Pow, p, q))
                }
                DType::Bool => nyi("pow"),
            }
        }
        Atan2 => match compute {
            DType::Float32 => {
                map_binary::<f32, f32>(&x, &y, |p, q| vmath::eval_binary(vk::Atan2, p, q))
            }
            _ => map_binary::<f64, f64>(&x, &y, |p, q| vmath::eval_binary(vk::Atan2, p, q)),
        },
        Maximum | Minimum => {
            let max = op == Maximum;
            match compute {
                DType::Bool => {
                    map_binary::<bool, bool>(&x, &y, move |p, q| if max { p | q } else { p & q })
                }
                DType::Int32 => {
                    map_binary::<i32, i32>(
                        &x,
                        &y,
                        move |p, q| if max { p.max(q) } else { p.min(q) },
                    )
                }
                DType::Int64 => {
                    map_binary::<i64, i64>(
                        &x,
                        &y,
                        move |p, q| if max { p.max(q) } else { p.min(q) },
                    )
                }
                DType::Float32 => {
                    map_binary::<f32, f32>(&x, &y, move |p, q| nan_minmax_f32(p, q, max))
                }
                DType::Float64 => {
                    map_binary::<f64, f64>(&x, &y, move |p, q| nan_minmax_f64(p, q, max))
                }
            }
        }
        Cmp(c) => {
            macro_rules! cmp {
                ($t:ty) => {
                    map_binary::<$t, bool>(&x, &y, move |p, q| c.eval(p, q))
                };
            }
            crate::with_dtype!(compute, T => cmp!(T))
        }
        LogicalAnd => map_binary::<bool, bool>(&x, &y, |p, q| p & q),
        LogicalOr => map_binary::<bool, bool>(&x, &y, |p, q| p | q),
        LogicalXor => map_binary::<bool, bool>(&x, &y, |p, q| p ^ q),
        BitAnd | BitOr | BitXor => {
            let name = match op {
                BitAnd => "bitwise_and_cpu",
                BitOr => "bitwise_or_cpu",
                _ => "bitwise_xor_cpu",
            };
            macro_rules! bits {
                ($t:ty) => {
                    map_binary::<$t, $t>(&x, &y, move |p, q| match op {
                        BitAnd => p & q,
                        BitOr => p | q,
                        _ => p ^ q,
                    })
                };
            }
            match compute {
                DType::Bool => bits!(bool),
                DType::Int32 => bits!(i32),
                DType::Int64 => bits!(i64),
                _ => nyi(name),
            }
        }
        Shl | Shr => {
            let left = op == Shl;
            match compute {
                DType::Int32 => map_binary::<i32, i32>(&x, &y, move |p, q| {
                    if left {
                        shl!(i32, p, q)
                    } else {
                        shr!(i32, p, q)
                    }
                }),
                DType::Int64 => map_binary::<i64, i64>(&x, &y, move |p, q| {
                    if left {
                        shl!(i64, p, q)
                    } else {
                        shr!(i64, p, q)
                    }
                }),
                _ => nyi(if left { "lshift_cpu" } else { "rshift_cpu" }),
            }
        }
    }
}

/// `x ** e` for a float tensor `x` and a Python-number exponent `e` that PyTorch computes by
/// another kernel than pow's (ATen's `pow_tensor_scalar_kernel` and its "optimized" kernel, CPU):
/// `0.5` is `sqrt` and `-0.5` `1/sqrt` (so `(-0.0) ** 0.5` is `-0.0` and `(-inf) ** 0.5` NaN, as
/// in PyTorch), `-1` is `1/x`, `3` is `(x*x)*x` and `-2` is `1/(x*x)` (each operation rounded:
/// PyTorch's bits, not the correctly rounded power). `2` needs nothing here: the pow kernels
/// compute `x*x` themselves. `None` for the other exponents (the pow kernel).
fn pow_by_other_kernels(x: &Tensor, e: f64) -> Option<Result<Tensor>> {
    let one = || Input::S(Scalar::Float(1.0));
    let square = || binary(BinaryOp::Mul, Input::T(x), Input::T(x));
    Some(if e == 0.5 {
        vector_unary(x, vk::Sqrt)
    } else if e == -0.5 {
        vector_unary(x, vk::Rsqrt)
    } else if e == -1.0 {
        binary(BinaryOp::Div, one(), Input::T(x))
    } else if e == 3.0 {
        square().and_then(|s| binary(BinaryOp::Mul, Input::T(&s), Input::T(x)))
    } else if e == -2.0 {
        square().and_then(|s| binary(BinaryOp::Div, one(), Input::T(&s)))
    } else {
        return None;
    })
}

/// `+ - * /` on float operands of the computation dtype that are contiguous and either of one
/// shape or one of them a single element: the vectorized, threaded [`vmath::arith`] kernels.
/// `None` when the operands need the general broadcasting path.
fn float_arith_fast(
    op: BinaryOp,
    x: &Tensor,
    y: &Tensor,
    compute: DType,
) -> Option<Result<Tensor>> {
    use vmath::arith;
    if x.dtype() != compute || y.dtype() != compute {
        return None;
    }
    use arith::Zip;
    match (compute, op) {
        (DType::Float32, BinaryOp::Add) => arith_fast::<f32, _>(Zip(arith::Add), x, y),
        (DType::Float32, BinaryOp::Sub) => arith_fast::<f32, _>(Zip(arith::Sub), x, y),
        (DType::Float32, BinaryOp::Mul) => arith_fast::<f32, _>(Zip(arith::Mul), x, y),
        (DType::Float32, BinaryOp::Div) => arith_fast::<f32, _>(Zip(arith::Div), x, y),
        (DType::Float32, BinaryOp::Pow) => arith_fast::<f32, _>(vk::Pow, x, y),
        (DType::Float32, BinaryOp::Atan2) => arith_fast::<f32, _>(vk::Atan2, x, y),
        (DType::Float64, BinaryOp::Add) => arith_fast::<f64, _>(Zip(arith::Add), x, y),
        (DType::Float64, BinaryOp::Sub) => arith_fast::<f64, _>(Zip(arith::Sub), x, y),
        (DType::Float64, BinaryOp::Mul) => arith_fast::<f64, _>(Zip(arith::Mul), x, y),
        (DType::Float64, BinaryOp::Div) => arith_fast::<f64, _>(Zip(arith::Div), x, y),
        (DType::Float64, BinaryOp::Pow) => arith_fast::<f64, _>(vk::Pow, x, y),
        (DType::Float64, BinaryOp::Atan2) => arith_fast::<f64, _>(vk::Atan2, x, y),
        _ => None,
    }
}

fn arith_fast<T, K>(k: K, x: &Tensor, y: &Tensor) -> Option<Result<Tensor>>
where
    T: vmath::Scalar + crate::element::Element,
    K: vmath::Binary<T>,
{
    use vmath::{Left, Right};
    if !x.is_contiguous() || !y.is_contiguous() {
        return None;
    }
    let shape = super::broadcast_shapes(x.shape(), y.shape()).ok()?;
    let (same, x_one, y_one) = (
        super::same_elements(x.shape(), y.shape(), &shape),
        x.numel() == 1 && y.shape() == shape.as_slice(),
        y.numel() == 1 && x.shape() == shape.as_slice(),
    );
    if !(same || x_one || y_one) {
        return None;
    }
    let n = match crate::tensor::check_alloc(&shape, T::DTYPE) {
        Ok(n) => n,
        Err(e) => return Some(Err(e)),
    };
    let mut out = match crate::bufpool::alloc::<T>(n) {
        Ok(v) => v,
        Err(e) => return Some(Err(e)),
    };
    let done = x
        .with_slice::<T, bool>(|xs| {
            y.with_slice::<T, bool>(|ys| {
                if same {
                    vmath::zip(k, xs, ys, &mut out);
                } else if y_one {
                    vmath::map(Right(k, ys[0]), xs, &mut out);
                } else {
                    vmath::map(Left(k, xs[0]), ys, &mut out);
                }
                true
            })
            .unwrap_or(false)
        })
        .unwrap_or(false);
    done.then(|| Ok(Tensor::from_buffer(T::into_buffer(out), &shape)))
}

/// NaN-propagating `maximum`/`minimum` of two `$t`s, as `$name`.
macro_rules! nan_minmax {
    ($name:ident, $t:ty) => {
        #[inline]
        fn $name(p: $t, q: $t, max: bool) -> $t {
            if p.is_nan() || q.is_nan() {
                <$t>::NAN
            } else if max {
                p.max(q)
            } else {
                p.min(q)
            }
        }
    };
}

nan_minmax!(nan_minmax_f32, f32);
nan_minmax!(nan_minmax_f64, f64);

macro_rules! tensor_tensor {
    ($($name:ident => $op:expr),* $(,)?) => {$(
        pub fn $name(a: &Tensor, b: &Tensor) -> Result<Tensor> {
            use BinaryOp::*;
            binary($op, Input::T(a), Input::T(b))
        }
    )*};
}

macro_rules! tensor_scalar {
    ($($name:ident => $op:expr),* $(,)?) => {$(
        pub fn $name(a: &Tensor, b: Scalar) -> Result<Tensor> {
            use BinaryOp::*;
            binary($op, Input::T(a), Input::S(b))
        }
    )*};
}

tensor_tensor! {
    add => Add, sub => Sub, mul => Mul, div => Div, true_divide => Div,
    floor_divide => DivFloor, remainder => Remainder, fmod => Fmod, pow => Pow, atan2 => Atan2,
    maximum => Maximum, minimum => Minimum, eq => Cmp(CmpOp::Eq), ne => Cmp(CmpOp::Ne),
    lt => Cmp(CmpOp::Lt), le => Cmp(CmpOp::Le), gt => Cmp(CmpOp::Gt), ge => Cmp(CmpOp::Ge),
    logical_and => LogicalAnd, logical_or => LogicalOr, logical_xor => LogicalXor,
    bitwise_and => BitAnd, bitwise_or => BitOr, bitwise_xor => BitXor,
    bitwise_left_shift => Shl, bitwise_right_shift => Shr,
}

tensor_scalar! {
    add_scalar => Add, sub_scalar => Sub, mul_scalar => Mul, div_scalar => Div,
    floor_divide_scalar => DivFloor, remainder_scalar => Remainder, fmod_scalar => Fmod,
    pow_scalar => Pow, eq_scalar => Cmp(CmpOp::Eq), ne_scalar => Cmp(CmpOp::Ne),
    lt_scalar => Cmp(CmpOp::Lt), le_scalar => Cmp(CmpOp::Le), gt_scalar => Cmp(CmpOp::Gt),
    ge_scalar => Cmp(CmpOp::Ge), bitwise_and_scalar => BitAnd, bitwise_or_scalar => BitOr,
    bitwise_xor_scalar => BitXor, bitwise_left_shift_scalar => Shl,
    bitwise_right_shift_scalar => Shr,
}

/// `scalar - t` (`rsub`).
pub fn rsub_scalar(t: &Tensor, s: Scalar) -> Result<Tensor> {
    binary(BinaryOp::Sub, Input::S(s), Input::T(t))
}

/// `scalar / t`.
pub fn rdiv_scalar(t: &Tensor, s: Scalar) -> Result<Tensor> {
    binary(BinaryOp::Div, Input::S(s), Input::T(t))
}

/// `scalar // t`.
pub fn rfloordiv_scalar(t: &Tensor, s: Scalar) -> Result<Tensor> {
    binary(BinaryOp::DivFloor, Input::S(s), Input::T(t))
}

/// `scalar % t`.
pub fn rremainder_scalar(s: Scalar, t: &Tensor) -> Result<Tensor> {
    binary(BinaryOp::Remainder, Input::S(s), Input::T(t))
}

/// `scalar ** t`.
pub fn rpow_scalar(s: Scalar, t: &Tensor) -> Result<Tensor> {
    binary(BinaryOp::Pow, Input::S(s), Input::T(t))
}

/// `div(a, b, rounding_mode=...)` with `None`, `"trunc"` or `"floor"`.
pub fn div_mode(a: Input<'_>, b: Input<'_>, mode: Option<&str>) -> Result<Tensor> {
    match mode {
        None => binary(BinaryOp::Div, a, b),
        Some("trunc") => binary(BinaryOp::DivTrunc, a, b),
        Some("floor") => binary(BinaryOp::DivFloor, a, b),
        Some(m) => Err(RuntimeError::Value(format!(
            "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{m}'"
        ))),
    }
}

/// `a + alpha * b` (`add(a, b, alpha=)`; `sub` negates `alpha`).
pub fn add_alpha(a: Input<'_>, b: Input<'_>, alpha: Scalar, subtract: bool) -> Result<Tensor> {
    let is_one = match alpha {
        Scalar::Int(1) => true,
        Scalar::Float(f) => f == 1.0,
        Scalar::Bool(b) => b,
        _ => false,
    };
    let op = if subtract {
        BinaryOp::Sub
    } else {
        BinaryOp::Add
    };
    if is_one {
        return binary(op, a, b);
    }
    let common = result_type(&[a.operand(), b.operand()]).unwrap_or(DType::Float32);
    if !common.is_float() && alpha.is_float() {
        return Err(RuntimeError::Value(
            "For integral input tensors, argument alpha must not be a floating point number."
                .into(),
        ));
    }
    let bt = b.tensor(common).to_dtype(common)?;
    let scaled = binary(BinaryOp::Mul, Input::T(&bt), Input::S(alpha))?.to_dtype(common)?;
    binary(op, a, Input::T(&scaled))
}

// ------------------------------------------------------------------------------- unary

fn float_input(t: &Tensor) -> Result<Tensor> {
    if t.dtype().is_float() {
        Ok(t.clone())
    } else {
        t.to_dtype(DEFAULT_FLOAT)
    }
}

macro_rules! float_unary {
    ($($(#[$m:meta])* $name:ident, $x:ident => $e:expr;)*) => {$(
        $(#[$m])*
        pub fn $name(t: &Tensor) -> Result<Tensor> {
            let t = float_input(t)?;
            match t.dtype() {
                DType::Float64 => map_unary::<f64, f64>(&t, |$x: f64| $e),
                _ => map_unary::<f32, f32>(&t, |$x: f32| $e),
            }
        }
    )*};
}

/// Applies a [`vmath`](super::vmath) kernel to a float tensor (int and bool inputs are
/// converted to the default float dtype first), vectorized and, for large tensors, threaded.
fn vector_unary<K: Unary<f32> + Unary<f64>>(t: &Tensor, k: K) -> Result<Tensor> {
    let t = float_input(t)?;
    match t.dtype() {
        DType::Float64 => map_float::<f64, K>(&t, k),
        _ => map_float::<f32, K>(&t, k),
    }
}

/// [`vector_unary`] on a tensor the caller gives up (a dead value): when its storage is uniquely
/// owned and contiguous and its dtype is float ([`Tensor::unique_contiguous_mut`]), the results
/// overwrite it — no allocation; otherwise a fresh result as `vector_unary`.
pub fn vector_unary_owned<K: Unary<f32> + Unary<f64>>(t: Tensor, k: K) -> Result<Tensor> {
    map_over(t, k).or_else(|t| vector_unary(&t, k))
}

/// `k` written over `t` when it is a uniquely owned contiguous float tensor; else `t` back.
fn map_over<K: Unary<f32> + Unary<f64>>(
    mut t: Tensor,
    k: K,
) -> std::result::Result<Tensor, Tensor> {
    if let Some(x) = t.unique_contiguous_mut::<f32>() {
        vmath::map_inplace(k, x);
        return Ok(t);
    }
    if let Some(x) = t.unique_contiguous_mut::<f64>() {
        vmath::map_inplace(k, x);
        return Ok(t);
    }
    Err(t)
}

/// `a op b` for `+ - * /` where the caller gives up `a` (a dead value): written over `a` when
/// `a` is uniquely owned and contiguous, already has the result's dtype and shape, and `b` is
/// a contiguous tensor of that dtype and shape or a single element (tensor or scalar) that does
/// not change the result dtype; otherwise [`binary`].
pub fn binary_owned(op: BinaryOp, mut a: Tensor, b: Input<'_>) -> Result<Tensor> {
    use vmath::arith::{self, Zip};
    let fits = matches!(
        op,
        BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div
    ) && a.dtype().is_float()
        && result_type(&[Input::T(&a).operand(), b.operand()]) == Some(a.dtype());
    if fits {
        let other = b.tensor(a.dtype());
        // (`b`'s elements in `a`'s order, and the result of `a`'s shape: the same shape, or
        // `[1, n] + [n]`; `same_elements` with `a`'s shape as the result's. The broadcast is
        // computed only when the shapes differ.)
        let same = other.is_contiguous()
            && other.numel() == a.numel()
            && (other.shape() == a.shape()
                || super::broadcast_shapes(a.shape(), other.shape())
                    .is_ok_and(|s| s.as_slice() == a.shape()));
        // (A one-element operand of higher rank would broadcast the result past `a`'s shape.)
        let scalar = other.numel() == 1 && other.dim() <= a.dim();
        if (same || scalar) && other.dtype() == a.dtype() {
            macro_rules! run {
                ($t:ty) => {
                    if let Some(x) = a.unique_contiguous_mut::<$t>() {
                        let done = other.with_view::<$t, Option<()>>(|v| {
                            let ys = v.as_slice()?;
                            match op {
                                BinaryOp::Add => in_place(Zip(arith::Add), x, ys, same),
                                BinaryOp::Sub => in_place(Zip(arith::Sub), x, ys, same),
                                BinaryOp::Mul => in_place(Zip(arith::Mul), x, ys, same),
                                _ => in_place(Zip(arith::Div), x, ys, same),
                            }
                            Some(())
                        });
                        if done == Some(Some(())) {
                            return Ok(a);
                        }
                    }
                };
            }
            match a.dtype() {
                DType::Float32 => run!(f32),
                _ => run!(f64),
            }
        }
    }
    binary(op, Input::T(&a), b)
}

fn in_place<T: vmath::Scalar, K: vmath::Binary<T>>(k: K, x: &mut [T], ys: &[T], same: bool) {
    if same {
        vmath::zip_inplace(k, x, ys);
    } else {
        vmath::map_inplace(vmath::Right(k, ys[0]), x);
    }
}

/// `k` over the elements of a tensor whose dtype is `T`, read in place when contiguous.
pub(crate) fn map_float<T, K>(t: &Tensor, k: K) -> Result<Tensor>
where
    T: vmath::Scalar + crate::element::Element,
    K: Unary<T>,
{
    let n = crate::tensor::check_alloc(t.shape(), T::DTYPE)?;
    let out = if t.is_contiguous() {
        let mut out = crate::bufpool::alloc::<T>(n)?;
        t.with_slice::<T, ()>(|x| vmath::map(k, x, &mut out))
            .map(|()| out)
    } else {
        None
    };
    let out = match out {
        Some(out) => out,
        None => {
            let mut buf = t.to_vec::<T>();
            vmath::map_inplace(k, &mut buf);
            buf
        }
    };
    Tensor::from_vec(out, t.shape())
}

/// The one list of the unary ops that are one vectorized `vmath` kernel per element: each
/// op's schema name and its kernel (`vmath::k`). Everything that maps such an op to its kernel
/// is generated from it: the eager functions below, the dispatcher's owned (in-place) kernels
/// and the typed tiles of fused groups, so the three cannot disagree. `$m` is a macro taking
/// `name => Kernel, ...`.
macro_rules! with_vector_unary_ops {
    ($m:ident) => {
        $m! {
            exp => Exp,
            expm1 => Expm1,
            log => Log,
            log1p => Log1p,
            log2 => Log2,
            log10 => Log10,
            sqrt => Sqrt,
            rsqrt => Rsqrt,
            tanh => Tanh,
            tanh_fast => TanhFast,
            sigmoid => Sigmoid,
            sin => Sin,
            cos => Cos,
            tan => Tan,
            asin => Asin,
            acos => Acos,
            atan => Atan,
            sinh => Sinh,
            cosh => Cosh,
        }
    };
}
pub(crate) use with_vector_unary_ops;

macro_rules! vector_unary_fns {
    ($($name:ident => $k:ident,)*) => {$(
        #[doc = concat!("`", stringify!($name), "` (vectorized; its error bound is in docs/kernels.md).")]
        pub fn $name(t: &Tensor) -> Result<Tensor> {
            vector_unary(t, vk::$k)
        }
    )*};
}

with_vector_unary_ops!(vector_unary_fns);

float_unary! {
    reciprocal, x => 1.0 / x;
}

/// `erf` (float result).
pub fn erf(t: &Tensor) -> Result<Tensor> {
    let t = float_input(t)?;
    match t.dtype() {
        DType::Float64 => map_float::<f64, _>(&t, vk::Erf),
        _ => map_float::<f32, _>(&t, vk::Erf),
    }
}

fn require_float(t: &Tensor, kernel: &str) -> Result<()> {
    if t.dtype().is_float() {
        Ok(())
    } else {
        Err(RuntimeError::not_implemented_for(kernel, t.dtype()))
    }
}

/// `F.gelu(x, approximate='none'|'tanh')`.
pub fn gelu(t: &Tensor, approximate: &str) -> Result<Tensor> {
    require_float(t, "GeluKernelImpl")?;
    let tanh_mode = match approximate {
        "none" => false,
        "tanh" => true,
        other => {
            return Err(RuntimeError::Value(format!(
                "approximate argument must be either none or tanh. Got {other}"
            )));
        }
    };
    match (t.dtype(), tanh_mode) {
        (DType::Float64, false) => map_float::<f64, _>(t, vk::GeluErf),
        (DType::Float64, true) => map_float::<f64, _>(t, vk::GeluTanh),
        (_, false) => map_float::<f32, _>(t, vk::GeluErf),
        (_, true) => map_float::<f32, _>(t, vk::GeluTanh),
    }
}

/// `F.silu(x) = x * sigmoid(x)`.
pub fn silu(t: &Tensor) -> Result<Tensor> {
    require_float(t, "silu_cpu")?;
    match t.dtype() {
        DType::Float64 => map_float::<f64, _>(t, vk::Silu),
        _ => map_float::<f32, _>(t, vk::Silu),
    }
}

/// `F.softplus(x, beta, threshold) = log1p(exp(beta x)) / beta`, linear above the threshold.
pub fn softplus(t: &Tensor, beta: f64, threshold: f64) -> Result<Tensor> {
    require_float(t, "softplus_cpu")?;
    let k = vk::Softplus { beta, threshold };
    match t.dtype() {
        DType::Float64 => map_float::<f64, _>(t, k),
        _ => map_float::<f32, _>(t, k),
    }
}

/// `F.leaky_relu(x, negative_slope)`.
pub fn leaky_relu(t: &Tensor, slope: f64) -> Result<Tensor> {
    require_float(t, "leaky_relu_cpu")?;
    match t.dtype() {
        DType::Float64 => map_unary::<f64, f64>(t, move |x| if x > 0.0 { x } else { x * slope }),
        _ => map_unary::<f32, f32>(t, move |x| if x > 0.0 { x } else { x * slope as f32 }),
    }
}

/// `-x` (wrapping for ints; an error for bool, as in PyTorch).
pub fn neg(t: &Tensor) -> Result<Tensor> {
    match t.dtype() {
        DType::Bool => Err(RuntimeError::NotImplemented(
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.".into(),
        )),
        DType::Int32 => map_unary::<i32, i32>(t, i32::wrapping_neg),
        DType::Int64 => map_unary::<i64, i64>(t, i64::wrapping_neg),
        DType::Float32 => map_float::<f32, _>(t, vk::Neg),
        DType::Float64 => map_float::<f64, _>(t, vk::Neg),
    }
}

/// `+x`: a copy (an error for bool).
pub fn positive(t: &Tensor) -> Result<Tensor> {
    if t.dtype() == DType::Bool {
        return Err(RuntimeError::NotImplemented(
            "The `+` operator, on a bool tensor is not supported.".into(),
        ));
    }
    Ok(t.clone())
}

pub fn abs(t: &Tensor) -> Result<Tensor> {
    match t.dtype() {
        DType::Bool => Err(RuntimeError::not_implemented_for("abs_cpu", DType::Bool)),
        DType::Int32 => map_unary::<i32, i32>(t, i32::wrapping_abs),
        DType::Int64 => map_unary::<i64, i64>(t, i64::wrapping_abs),
        DType::Float32 => map_float::<f32, _>(t, vk::Abs),
        DType::Float64 => map_float::<f64, _>(t, vk::Abs),
    }
}

/// A float-to-float sign op (`abs`, `neg`) on a tensor the caller gives up: written over it
/// when it is a uniquely owned contiguous float tensor, else `eager(&t)` (which keeps an
/// integer tensor's dtype, unlike [`vector_unary_owned`]).
pub fn sign_op_owned<K: Unary<f32> + Unary<f64>>(
    t: Tensor,
    k: K,
    eager: fn(&Tensor) -> Result<Tensor>,
) -> Result<Tensor> {
    map_over(t, k).or_else(|t| eager(&t))
}

/// `sign(x)`: -1, 0 or 1 (0 for NaN and ±0, as PyTorch's `(0 < x) - (x < 0)`).
pub fn sign(t: &Tensor) -> Result<Tensor> {
    match t.dtype() {
        DType::Bool => t.clone_data(),
        DType::Int32 => map_unary::<i32, i32>(t, i32::signum),
        DType::Int64 => map_unary::<i64, i64>(t, i64::signum),
        DType::Float32 => map_unary::<f32, f32>(t, |x| ((0.0 < x) as i8 - (x < 0.0) as i8) as f32),
        DType::Float64 => map_unary::<f64, f64>(t, |x| ((0.0 < x) as i8 - (x < 0.0) as i8) as f64),
    }
}

macro_rules! rounding {
    ($($name:ident, $kernel:literal, $f:expr;)*) => {$(
        pub fn $name(t: &Tensor) -> Result<Tensor> {
            match t.dtype() {
                DType::Bool => Err(RuntimeError::not_implemented_for($kernel, DType::Bool)),
                DType::Int32 | DType::Int64 => t.clone_data(),
                DType::Float32 => map_unary::<f32, f32>(t, |x| $f(x as f64) as f32),
                DType::Float64 => map_unary::<f64, f64>(t, $f),
            }
        }
    )*};
}

rounding! {
    floor, "floor_vml_cpu", f64::floor;
    ceil, "ceil_vml_cpu", f64::ceil;
    round, "round_vml_cpu", f64::round_ties_even;
    trunc, "trunc_vml_cpu", f64::trunc;
}

/// `round(x, decimals=d)`, half to even at the scaled position (PyTorch's formula).
pub fn round_decimals(t: &Tensor, decimals: i64) -> Result<Tensor> {
    if decimals == 0 {
        return round(t);
    }
    if !t.dtype().is_float() {
        return Err(RuntimeError::not_implemented_for("round_cpu", t.dtype()));
    }
    let neg = decimals < 0;
    let ten_pow = 10f64.powi(decimals.unsigned_abs().min(400) as i32);
    match t.dtype() {
        DType::Float64 => map_unary::<f64, f64>(t, move |x| {
            if neg {
                (x / ten_pow).round_ties_even() * ten_pow
            } else {
                (x * ten_pow).round_ties_even() / ten_pow
            }
        }),
        _ => {
            let tp = ten_pow as f32;
            map_unary::<f32, f32>(t, move |x| {
                if neg {
                    (x / tp).round_ties_even() * tp
                } else {
                    (x * tp).round_ties_even() / tp
                }
            })
        }
    }
}

/// `x * x` keeping int dtypes (bool becomes int64, as `pow(bool, 2)` does).
pub fn square(t: &Tensor) -> Result<Tensor> {
    let t = if t.dtype() == DType::Bool {
        t.to_dtype(DType::Int64)?
    } else {
        t.clone()
    };
    mul(&t, &t)
}

pub fn relu(t: &Tensor) -> Result<Tensor> {
    match t.dtype() {
        DType::Bool => Err(RuntimeError::NotImplemented(
            "Boolean inputs not supported for relu".into(),
        )),
        DType::Int32 => map_unary::<i32, i32>(t, |x| x.max(0)),
        DType::Int64 => map_unary::<i64, i64>(t, |x| x.max(0)),
        DType::Float32 => map_unary::<f32, f32>(t, |x| if x.is_nan() { x } else { x.max(0.0) }),
        DType::Float64 => map_unary::<f64, f64>(t, |x| if x.is_nan() { x } else { x.max(0.0) }),
    }
}

pub fn logical_not(t: &Tensor) -> Result<Tensor> {
    map_unary::<bool, bool>(t, |x| !x)
}

/// `~x`: bitwise not for ints, logical not for bool.
pub fn bitwise_not(t: &Tensor) -> Result<Tensor> {
    match t.dtype() {
        DType::Bool => map_unary::<bool, bool>(t, |x| !x),
        DType::Int32 => map_unary::<i32, i32>(t, |x| !x),
        DType::Int64 => map_unary::<i64, i64>(t, |x| !x),
        d => Err(RuntimeError::not_implemented_for("bitwise_not_cpu", d)),
    }
}

pub fn isnan(t: &Tensor) -> Result<Tensor> {
    match t.dtype() {
        DType::Float32 => map_unary::<f32, bool>(t, f32::is_nan),
        DType::Float64 => map_unary::<f64, bool>(t, f64::is_nan),
        _ => Tensor::full(t.shape(), Scalar::Bool(false), DType::Bool),
    }
}

pub fn isinf(t: &Tensor) -> Result<Tensor> {
    match t.dtype() {
        DType::Float32 => map_unary::<f32, bool>(t, f32::is_infinite),
        DType::Float64 => map_unary::<f64, bool>(t, f64::is_infinite),
        _ => Tensor::full(t.shape(), Scalar::Bool(false), DType::Bool),
    }
}

pub fn isfinite(t: &Tensor) -> Result<Tensor> {
    match t.dtype() {
        DType::Float32 => map_unary::<f32, bool>(t, f32::is_finite),
        DType::Float64 => map_unary::<f64, bool>(t, f64::is_finite),
        _ => Tensor::full(t.shape(), Scalar::Bool(true), DType::Bool),
    }
}

/// `clamp(x, min, max)` with scalar or tensor bounds; NaN in the input or a bound propagates.
pub fn clamp(t: &Tensor, min: Option<Input<'_>>, max: Option<Input<'_>>) -> Result<Tensor> {
    if min.is_none() && max.is_none() {
        return Err(RuntimeError::Value(
            "torch.clamp: At least one of 'min' or 'max' must not be None".into(),
        ));
    }
    let mut ops = vec![Operand::of(t)];
    ops.extend(min.iter().map(Input::operand));
    ops.extend(max.iter().map(Input::operand));
    let dt = result_type(&ops).unwrap_or(t.dtype());
    let mut r = t.to_dtype(dt)?;
    if let Some(lo) = min {
        r = binary(BinaryOp::Maximum, Input::T(&r), lo)?.to_dtype(dt)?;
    }
    if let Some(hi) = max {
        r = binary(BinaryOp::Minimum, Input::T(&r), hi)?.to_dtype(dt)?;
    }
    if r.shares_storage(t) {
        r = r.clone_data()?;
    }
    Ok(r)
}

/// `torch.where(cond, a, b)`.
pub fn where_(cond: &Tensor, a: Input<'_>, b: Input<'_>) -> Result<Tensor> {
    if cond.dtype() != DType::Bool {
        return Err(RuntimeError::DType(format!(
            "where expected condition to be a boolean tensor, but got a tensor with dtype {}",
            cond.dtype().scalar_type_name()
        )));
    }
    let dt = result_type(&[a.operand(), b.operand()]).unwrap_or(DEFAULT_FLOAT);
    let x = a.tensor(dt);
    let y = b.tensor(dt);
    crate::with_dtype!(dt, T => map_ternary::<bool, T, T>(cond, &x, &y, |c, p, q| if c { p } else { q }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32s(v: &[f32]) -> Tensor {
        Tensor::from_slice(v)
    }
    fn i64s(v: &[i64]) -> Tensor {
        Tensor::from_slice(v)
    }

    /// With several mismatched dims the error names the innermost, as PyTorch's `infer_size`.
    #[test]
    fn broadcast_errors_name_the_last_mismatch() {
        let msg =
            |a: &[usize], b: &[usize]| crate::ops::broadcast_shapes(a, b).unwrap_err().to_string();
        assert_eq!(
            msg(&[2, 3], &[3, 2]),
            "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1"
        );
        assert_eq!(
            msg(&[4, 2, 3], &[5, 3, 3]),
            "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 1"
        );
        assert_eq!(
            crate::ops::broadcast_shapes(&[3, 1], &[4])
                .unwrap()
                .as_slice(),
            [3, 4].as_slice()
        );
    }

    #[test]
    fn floor_division_and_remainder_follow_python() {
        let a = i64s(&[-7, 7, -7, 7]);
        let b = i64s(&[2, -2, -2, 2]);
        assert_eq!(
            floor_divide(&a, &b).unwrap().to_vec::<i64>(),
            vec![-4, -4, 3, 3]
        );
        assert_eq!(
            remainder(&a, &b).unwrap().to_vec::<i64>(),
            vec![1, -1, -1, 1]
        );
        assert_eq!(fmod(&a, &b).unwrap().to_vec::<i64>(), vec![-1, 1, -1, 1]);
        let fa = f32s(&[-7.5, 7.5]);
        let fb = f32s(&[2.0, -2.0]);
        assert_eq!(
            floor_divide(&fa, &fb).unwrap().to_vec::<f32>(),
            vec![-4.0, -4.0]
        );
        assert_eq!(
            remainder(&fa, &fb).unwrap().to_vec::<f32>(),
            vec![0.5, -0.5]
        );
        let z = i64s(&[1, 0]);
        assert_eq!(
            floor_divide(&a.slice(0, Some(0), Some(2), 1).unwrap(), &z),
            Err(RuntimeError::ZeroDivision)
        );
        assert_eq!(
            remainder_scalar(&a, Scalar::Int(0)),
            Err(RuntimeError::ZeroDivision)
        );
        // float division by zero is IEEE
        let r = floor_divide_scalar(&fa, Scalar::Int(0))
            .unwrap()
            .to_vec::<f32>();
        assert_eq!(r, vec![f32::NEG_INFINITY, f32::INFINITY]);
    }

    #[test]
    fn promotion_of_scalars_and_true_division() {
        let i = i64s(&[1, 2]);
        assert_eq!(
            mul_scalar(&i, Scalar::Float(2.5)).unwrap().dtype(),
            DType::Float32
        );
        assert_eq!(div(&i, &i).unwrap().dtype(), DType::Float32);
        let f = f32s(&[1.0]);
        assert_eq!(
            mul_scalar(&f, Scalar::Float(2.0)).unwrap().dtype(),
            DType::Float32
        );
        let i32t = Tensor::from_slice(&[1i32]);
        assert_eq!(
            add(&i32t, &Tensor::scalar(Scalar::Int(5))).unwrap().dtype(),
            DType::Int32
        );
        let b = Tensor::from_slice(&[true, false]);
        assert_eq!(
            add_scalar(&b, Scalar::Int(1)).unwrap().to_vec::<i64>(),
            vec![2, 1]
        );
        assert!(matches!(
            sub_scalar(&b, Scalar::Int(1)),
            Err(RuntimeError::NotImplemented(_))
        ));
    }

    #[test]
    fn overflow_wraps_and_pow() {
        let a = i64s(&[1 << 62]);
        assert_eq!(
            mul_scalar(&a, Scalar::Int(4)).unwrap().to_vec::<i64>(),
            vec![0]
        );
        let i = i64s(&[3, -2]);
        assert_eq!(
            pow_scalar(&i, Scalar::Int(2)).unwrap().to_vec::<i64>(),
            vec![9, 4]
        );
        assert!(pow_scalar(&i, Scalar::Int(-1)).is_err());
        assert_eq!(
            pow(&i, &i64s(&[-1, -2])).unwrap().to_vec::<i64>(),
            vec![0, 0]
        );
        assert_eq!(
            pow_scalar(&i, Scalar::Float(2.5)).unwrap().dtype(),
            DType::Float32
        );
        assert_eq!(
            rpow_scalar(Scalar::Int(2), &i).unwrap().to_vec::<i64>(),
            vec![8, 0]
        );
    }

    /// PyTorch computes `x ** e` for these exponents by other kernels; the bits must be theirs
    /// (`pow_by_other_kernels`), in both float dtypes, for Python float and int exponents.
    #[test]
    fn pow_scalar_exponents_take_pytorchs_kernels() {
        let mut v: Vec<f64> = vec![0.0, -0.0, 1.0, -1.0, 2.0, -3.5, 1e-40, 1e300, -1e-310];
        v.extend([f64::INFINITY, f64::NEG_INFINITY, f64::NAN]);
        let mut s: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..4000 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            v.push(((s >> 11) as f64 / (1u64 << 53) as f64 - 0.25) * 40.0);
        }
        let same32 = |a: f32, b: f32| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
        let same64 = |a: f64, b: f64| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
        type Form = (Scalar, fn(f32) -> f32, fn(f64) -> f64);
        let cases: [Form; 6] = [
            (Scalar::Float(0.5), |x| x.sqrt(), |x| x.sqrt()),
            (Scalar::Float(-0.5), |x| 1.0 / x.sqrt(), |x| 1.0 / x.sqrt()),
            (Scalar::Float(-1.0), |x| 1.0 / x, |x| 1.0 / x),
            (Scalar::Int(-1), |x| 1.0 / x, |x| 1.0 / x),
            (Scalar::Int(3), |x| x * x * x, |x| x * x * x),
            (Scalar::Float(-2.0), |x| 1.0 / (x * x), |x| 1.0 / (x * x)),
        ];
        let x32: Vec<f32> = v.iter().map(|&x| x as f32).collect();
        let t32 = f32s(&x32);
        let t64 = Tensor::from_slice(&v);
        for (e, f, g) in cases {
            let r32 = pow_scalar(&t32, e).unwrap().to_vec::<f32>();
            for (&x, &r) in x32.iter().zip(&r32) {
                assert!(
                    same32(r, f(x)),
                    "f32 {x:e} ** {e:?} = {r:e}, want {:e}",
                    f(x)
                );
            }
            let r64 = pow_scalar(&t64, e).unwrap().to_vec::<f64>();
            for (&x, &r) in v.iter().zip(&r64) {
                assert!(
                    same64(r, g(x)),
                    "f64 {x:e} ** {e:?} = {r:e}, want {:e}",
                    g(x)
                );
            }
        }
        // The test can fail: the rounded-twice cube is not always the correctly rounded one
        // (which the pow kernel gives), and sqrt(-0) is -0 where pow(-0, 0.5) is +0.
        assert!(
            x32.iter()
                .any(|&x| x * x * x != ((x as f64).powi(3)) as f32)
        );
        let z = pow_scalar(&f32s(&[-0.0]), Scalar::Float(0.5))
            .unwrap()
            .to_vec::<f32>();
        assert!(z[0].is_sign_negative());
    }

    #[test]
    fn nan_propagation_and_rounding() {
        let x = f32s(&[1.0, f32::NAN]);
        let y = f32s(&[f32::NAN, 0.0]);
        assert!(
            maximum(&x, &y)
                .unwrap()
                .to_vec::<f32>()
                .iter()
                .all(|v| v.is_nan())
        );
        let c = clamp(
            &f32s(&[f32::NAN, 1.0]),
            Some(Input::S(Scalar::Int(0))),
            Some(Input::S(Scalar::Float(0.5))),
        )
        .unwrap();
        let c = c.to_vec::<f32>();
        assert!(c[0].is_nan());
        assert_eq!(c[1], 0.5);
        let r = round(&f32s(&[0.5, 1.5, 2.5, -0.5, -2.5]))
            .unwrap()
            .to_vec::<f32>();
        assert_eq!(r, vec![0.0, 2.0, 2.0, -0.0, -2.0]);
        assert!(r[3].is_sign_negative());
        let s = sign(&f32s(&[f32::NAN, -0.0, -3.0]))
            .unwrap()
            .to_vec::<f32>();
        assert_eq!(s, vec![0.0, 0.0, -1.0]);
    }

    #[test]
    fn broadcasting_size_one_and_missing_dims() {
        let a = Tensor::from_vec(vec![1.0f32, 2.0, 3.0], &[3, 1]).unwrap();
        let b = f32s(&[10.0, 20.0]);
        let r = add(&a, &b).unwrap();
        assert_eq!(r.shape(), &[3, 2]);
        assert_eq!(r.to_vec::<f32>(), vec![11.0, 21.0, 12.0, 22.0, 13.0, 23.0]);
        let e = add(&f32s(&[1.0, 2.0, 3.0]), &f32s(&[1.0, 2.0])).unwrap_err();
        assert_eq!(
            e.to_string(),
            "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0"
        );
        let empty = Tensor::zeros(&[0, 2], DType::Float32).unwrap();
        assert_eq!(add(&empty, &b).unwrap().shape(), &[0, 2]);
    }

    /// Operands whose shapes differ only by dims of size 1 (`[1, n] + [n]`) take the flat
    /// fast paths (`same_elements`: float kernels, the generic `map_binary`, and the in-place
    /// path of a dead left operand); real broadcasts must not. Each result equals the product
    /// of operands first expanded to the result's shape.
    #[test]
    fn size_one_dims_combine_as_flat_slices() {
        let pairs: [(&[usize], &[usize]); 6] = [
            (&[1, 5], &[5]),
            (&[5], &[1, 5]),
            (&[5, 1], &[5]),
            (&[1, 1, 5], &[1, 5]),
            (&[2, 1, 3], &[1, 2, 1, 3]),
            (&[2, 1, 3], &[2, 3]),
        ];
        for (sa, sb) in pairs {
            let na: usize = sa.iter().product();
            let nb: usize = sb.iter().product();
            let shape = super::super::broadcast_shapes(sa, sb).unwrap();
            for dtype in [DType::Float32, DType::Float64, DType::Int64] {
                let make_a = || {
                    Tensor::from_vec((0..na).map(|v| v as f64 * 1.5 - 2.0).collect(), sa)
                        .unwrap()
                        .to_dtype(dtype)
                        .unwrap()
                };
                let a = make_a();
                let b = Tensor::from_vec((0..nb).map(|v| 7.0 - v as f64 * 0.25).collect(), sb)
                    .unwrap()
                    .to_dtype(dtype)
                    .unwrap();
                let sizes: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
                let full = |t: &Tensor| t.expand(&sizes).unwrap().contiguous().unwrap();
                for op in [BinaryOp::Add, BinaryOp::Sub, BinaryOp::Maximum] {
                    let want = binary(op, Input::T(&full(&a)), Input::T(&full(&b))).unwrap();
                    let got = binary(op, Input::T(&a), Input::T(&b)).unwrap();
                    assert_eq!(got.shape(), &shape[..], "{sa:?} {op:?} {sb:?}");
                    assert_eq!(got.to_vec::<f64>(), want.to_vec::<f64>(), "{sa:?} {sb:?}");
                    // A dead left operand (uniquely owned: a fresh tensor).
                    let owned = binary_owned(op, make_a(), Input::T(&b)).unwrap();
                    assert_eq!(owned.shape(), &shape[..], "owned {sa:?} {op:?} {sb:?}");
                    assert_eq!(owned.to_vec::<f64>(), want.to_vec::<f64>());
                }
            }
        }
    }

    #[test]
    fn non_contiguous_inputs() {
        let a = Tensor::from_vec((0..6).map(|v| v as f32).collect(), &[2, 3]).unwrap();
        let t = a.t().unwrap();
        let r = add_scalar(&t, Scalar::Int(1)).unwrap();
        assert_eq!(r.shape(), &[3, 2]);
        assert_eq!(r.to_vec::<f32>(), vec![1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
    }

    #[test]
    fn fast_exp_is_accurate_everywhere() {
        let mut xs: Vec<f32> = (-120_000..120_000).map(|i| i as f32 / 1000.0).collect();
        xs.extend([
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            -0.0,
            88.5,
            -87.5,
            -103.0,
            1e-30,
        ]);
        let t = Tensor::from_slice(&xs);
        let got = exp(&t).unwrap().to_vec::<f32>();
        for (&x, &g) in xs.iter().zip(&got) {
            let want = (x as f64).exp() as f32;
            if want.is_nan() {
                assert!(g.is_nan());
            } else if want.is_infinite() || want == 0.0 {
                assert_eq!(g, want, "exp({x})");
            } else {
                let rel = ((g as f64 - want as f64) / want as f64).abs();
                assert!(
                    rel < 3e-7 || (want as f64) < 1e-37,
                    "exp({x}) = {g}, want {want}, rel {rel}"
                );
            }
        }
    }

    #[test]
    fn bool_kernels_raise_like_pytorch() {
        let b = Tensor::from_slice(&[true]);
        assert_eq!(
            abs(&b).unwrap_err().to_string(),
            "\"abs_cpu\" not implemented for 'Bool'"
        );
        assert!(neg(&b).is_err());
        assert_eq!(bitwise_not(&b).unwrap().to_vec::<bool>(), vec![false]);
        assert_eq!(exp(&b).unwrap().dtype(), DType::Float32);
        assert!(gelu(&i64s(&[1]), "none").is_err());
    }
}
