//! One element of a float elementwise tensor op: what the tensor kernels compute for each element
//! of a `float32` or `float64` tensor, as a function of plain numbers.
//!
//! The optimizer's `scalarize` pass turns computations on 0-d tensors (`x[i]` of a 1-D array,
//! `np.float32(1.0)`, `np.exp(x[i])` …) into `elem` ops on unboxed floats; the interpreter and
//! native code evaluate those with [`eval`], which runs the very kernel functions the tensor
//! loops run ([`vmath::k`], with the FMA flavour [`vmath::map`] dispatches to), so a scalarized
//! program gives the tensor program's bits. Values of a `float32` computation are carried as
//! `f64`s that are exactly `f32` values; each op rounds its operands to the precision first
//! (what the tensor kernels do to a Python scalar operand) and its result after.

use super::vmath::{self, k as vk};

/// The precision of an `elem` op: the dtype of the tensors whose element it computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Prec {
    F32,
    F64,
}

impl Prec {
    pub const ALL: [Prec; 2] = [Prec::F32, Prec::F64];

    pub fn name(self) -> &'static str {
        match self {
            Prec::F32 => "f32",
            Prec::F64 => "f64",
        }
    }

    pub fn from_name(name: &str) -> Option<Prec> {
        Prec::ALL.into_iter().find(|p| p.name() == name)
    }

    /// The precision of a tensor dtype, for the float dtypes.
    pub fn of(dtype: crate::DType) -> Option<Prec> {
        match dtype {
            crate::DType::Float32 => Some(Prec::F32),
            crate::DType::Float64 => Some(Prec::F64),
            _ => None,
        }
    }

    pub fn dtype(self) -> crate::DType {
        match self {
            Prec::F32 => crate::DType::Float32,
            Prec::F64 => crate::DType::Float64,
        }
    }
}

/// The element types of [`ElemFn`]'s precisions.
trait ElemFloat:
    vmath::Scalar
    + std::ops::Neg<Output = Self>
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Div<Output = Self>
{
    fn abs(self) -> Self;
}

impl ElemFloat for f32 {
    fn abs(self) -> f32 {
        f32::abs(self)
    }
}

impl ElemFloat for f64 {
    fn abs(self) -> f64 {
        f64::abs(self)
    }
}

macro_rules! elem_fns {
    (
        binary { $($bv:ident $bn:literal $bop:tt;)* }
        unary { $($uv:ident $un:literal => $k:ident;)* }
    ) => {
        /// A per-element float function. `Cast` rounds to the precision (the conversion of a
        /// Python float, or of a wider tensor, to the dtype); the others are the tensor ops of
        /// the same name (`add`, `exp` …) on one element.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum ElemFn {
            Cast,
            Neg,
            Abs,
            $($bv,)*
            $($uv,)*
        }

        impl ElemFn {
            pub const ALL: &'static [ElemFn] = &[ElemFn::Cast, ElemFn::Neg, ElemFn::Abs, $(ElemFn::$bv,)* $(ElemFn::$uv,)*];

            /// The name in the IR (`elem.NAME.f32`), which is also the tensor op's name.
            pub fn name(self) -> &'static str {
                match self {
                    ElemFn::Cast => "cast",
                    ElemFn::Neg => "neg",
                    ElemFn::Abs => "abs",
                    $(ElemFn::$bv => $bn,)*
                    $(ElemFn::$uv => $un,)*
                }
            }

            /// The number of operands.
            pub fn arity(self) -> usize {
                match self {
                    $(ElemFn::$bv => 2,)*
                    _ => 1,
                }
            }

            /// The function on operands of one precision (`f32` or `f64`).
            fn eval_in<T: ElemFloat>(self, a: T, b: T) -> T
            where
                $(vk::$k: vmath::Unary<T>,)*
            {
                match self {
                    ElemFn::Cast => a,
                    ElemFn::Neg => -a,
                    ElemFn::Abs => a.abs(),
                    $(ElemFn::$bv => a $bop b,)*
                    $(ElemFn::$uv => vmath::eval_unary(vk::$k, a),)*
                }
            }
        }

        /// One C-ABI function per kernel and precision for native code to call: the plain
        /// flavour, and (x86-64) the FMA flavour compiled for AVX2+FMA.
        #[allow(non_snake_case)]
        mod c_entries {
            use super::super::vmath::{k as vk, Unary};
            $(
                pub mod $uv {
                    use super::*;
                    fn run<T: Copy, K: Unary<T>, const F: bool>(k: K, x: T) -> T {
                        if K::HAS_SLOW && k.needs_slow(x) {
                            return k.slow(x);
                        }
                        k.eval::<F>(x)
                    }
                    pub extern "C" fn f32_plain(x: f32) -> f32 {
                        run::<f32, _, false>(vk::$k, x)
                    }
                    pub extern "C" fn f64_plain(x: f64) -> f64 {
                        run::<f64, _, false>(vk::$k, x)
                    }
                    /// # Safety
                    /// Only on a CPU with AVX2 and FMA.
                    #[cfg(target_arch = "x86_64")]
                    #[target_feature(enable = "avx2,fma")]
                    pub unsafe extern "C" fn f32_fma(x: f32) -> f32 {
                        run::<f32, _, true>(vk::$k, x)
                    }
                    /// # Safety
                    /// Only on a CPU with AVX2 and FMA.
                    #[cfg(target_arch = "x86_64")]
                    #[target_feature(enable = "avx2,fma")]
                    pub unsafe extern "C" fn f64_fma(x: f64) -> f64 {
                        run::<f64, _, true>(vk::$k, x)
                    }
                }
            )*
        }

        /// The C-ABI functions native code calls for the element functions it does not
        /// inline: `f(x)` at precision `prec`, taking and returning an `f32` (for
        /// [`Prec::F32`]) or an `f64`, with the bits [`eval`] gives (the flavour
        /// [`vmath::fma_flavour`] selects, as the tensor loops).
        pub fn entries() -> Vec<Entry> {
            let fma = vmath::fma_flavour();
            let mut out = Vec::new();
            $(
                #[cfg(target_arch = "x86_64")]
                let (a32, a64) = if fma {
                    (c_entries::$uv::f32_fma as *const u8, c_entries::$uv::f64_fma as *const u8)
                } else {
                    (c_entries::$uv::f32_plain as *const u8, c_entries::$uv::f64_plain as *const u8)
                };
                #[cfg(not(target_arch = "x86_64"))]
                let (a32, a64) = {
                    let _ = fma;
                    (c_entries::$uv::f32_plain as *const u8, c_entries::$uv::f64_plain as *const u8)
                };
                out.push(Entry { f: ElemFn::$uv, prec: Prec::F32, name: concat!("pjn_elem_", $un, "_f32"), address: a32 });
                out.push(Entry { f: ElemFn::$uv, prec: Prec::F64, name: concat!("pjn_elem_", $un, "_f64"), address: a64 });
            )*
            out
        }
    };
}

/// A C-ABI function computing one element function (see [`entries`]).
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    pub f: ElemFn,
    pub prec: Prec,
    /// The symbol name native code imports it under.
    pub name: &'static str,
    pub address: *const u8,
}

elem_fns! {
    binary {
        Add "add" +;
        Sub "sub" -;
        Mul "mul" *;
        Div "div" /;
    }
    unary {
        Exp "exp" => Exp;
        Expm1 "expm1" => Expm1;
        Log "log" => Log;
        Log1p "log1p" => Log1p;
        Log2 "log2" => Log2;
        Log10 "log10" => Log10;
        Sqrt "sqrt" => Sqrt;
        Rsqrt "rsqrt" => Rsqrt;
        Tanh "tanh" => Tanh;
        TanhFast "tanh_fast" => TanhFast;
        Sigmoid "sigmoid" => Sigmoid;
        Sin "sin" => Sin;
        Cos "cos" => Cos;
        Tan "tan" => Tan;
        Asin "asin" => Asin;
        Acos "acos" => Acos;
        Atan "atan" => Atan;
        Sinh "sinh" => Sinh;
        Cosh "cosh" => Cosh;
    }
}

impl ElemFn {
    pub fn from_name(name: &str) -> Option<ElemFn> {
        ElemFn::ALL.iter().copied().find(|f| f.name() == name)
    }

    /// The per-element definition of the tensor op `name` (a schema name, any overload) on
    /// float tensors, when it has one here. `add`/`sub` mean `alpha == 1`; `div` without a
    /// rounding mode. `Cast` is no tensor op's.
    pub fn of_tensor_op(name: &str) -> Option<ElemFn> {
        match name {
            "cast" => None,
            _ => ElemFn::from_name(name),
        }
    }

    /// Whether native code computes it with an instruction or two (no call): the IEEE
    /// operations, which give the same bits in either precision's registers.
    pub fn is_inline(self) -> bool {
        matches!(
            self,
            ElemFn::Cast
                | ElemFn::Neg
                | ElemFn::Abs
                | ElemFn::Add
                | ElemFn::Sub
                | ElemFn::Mul
                | ElemFn::Div
                | ElemFn::Sqrt
        )
    }
}

/// `f` at precision `p` of `a` (and `b` for the binary ones; ignored otherwise). Operands are
/// first rounded to `p`; the result is a value of `p`.
pub fn eval(f: ElemFn, p: Prec, a: f64, b: f64) -> f64 {
    match p {
        Prec::F32 => f.eval_in(a as f32, b as f32) as f64,
        Prec::F64 => f.eval_in(a, b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{DType, Tensor, Value};

    fn unary(name: &str, t: Tensor) -> Vec<f64> {
        let r = crate::call_by_name(name, vec![Value::Tensor(t)], vec![]).unwrap();
        let Some(Value::Tensor(r)) = r.into_iter().next() else {
            panic!("{name} gave no tensor")
        };
        r.to_dtype(DType::Float64).unwrap().to_vec::<f64>()
    }

    /// Each function gives, for one element, the bits the tensor op gives for a 0-d tensor and
    /// for an element of a long (vectorized) tensor.
    #[test]
    fn elements_match_the_tensor_kernels() {
        let xs: Vec<f64> = vec![
            0.0,
            -0.0,
            0.5,
            -0.75,
            1.0,
            2.5,
            -3.25,
            10.0,
            88.5,
            -100.0,
            1e-7,
            0.3,
            0.999,
            1.5e30,
            f64::INFINITY,
            -f64::INFINITY,
            f64::NAN,
            1e300,
        ];
        for &p in &Prec::ALL {
            for &f in ElemFn::ALL {
                let Some(name) = (f.arity() == 1 && f != ElemFn::Cast).then(|| f.name()) else {
                    continue;
                };
                let long: Vec<f64> = xs.iter().cycle().take(xs.len() * 8).copied().collect();
                let t = Tensor::from_vec(long.clone(), &[long.len()])
                    .unwrap()
                    .to_dtype(p.dtype())
                    .unwrap();
                let got = unary(name, t);
                for (i, &x) in long.iter().enumerate() {
                    let want = got[i];
                    let x = eval(ElemFn::Cast, p, x, 0.0);
                    let e = eval(f, p, x, 0.0);
                    assert!(
                        e.to_bits() == want.to_bits() || (e.is_nan() && want.is_nan()),
                        "{}.{}({x}) = {e}, the tensor kernel gives {want}",
                        name,
                        p.name()
                    );
                }
                let zero_d = Tensor::from_vec(vec![xs[3]], &[])
                    .unwrap()
                    .to_dtype(p.dtype())
                    .unwrap();
                let want = unary(name, zero_d)[0];
                let e = eval(f, p, eval(ElemFn::Cast, p, xs[3], 0.0), 0.0);
                assert!(e.to_bits() == want.to_bits() || (e.is_nan() && want.is_nan()));
            }
        }
    }

    #[test]
    fn c_entries_give_evals_bits() {
        let entries = entries();
        // Every function native code does not inline has both entries.
        for f in ElemFn::ALL.iter().filter(|f| !f.is_inline()) {
            assert_eq!(entries.iter().filter(|e| e.f == *f).count(), 2, "{f:?}");
        }
        for e in entries {
            for x in [0.3f64, -2.5, 100.0, 1e-30, 7.25e5] {
                let want = eval(e.f, e.prec, x, 0.0);
                let got = match e.prec {
                    Prec::F32 => {
                        // SAFETY: `entries` gives each function's C ABI: f32 -> f32 here.
                        let f: extern "C" fn(f32) -> f32 =
                            unsafe { std::mem::transmute(e.address) };
                        f64::from(f(x as f32))
                    }
                    Prec::F64 => {
                        // SAFETY: as above, f64 -> f64.
                        let f: extern "C" fn(f64) -> f64 =
                            unsafe { std::mem::transmute(e.address) };
                        f(x)
                    }
                };
                assert!(
                    got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                    "{}({x})",
                    e.name
                );
            }
        }
    }

    #[test]
    fn f32_arithmetic_rounds_operands_and_result() {
        let third = eval(ElemFn::Div, Prec::F32, 1.0, 3.0);
        assert_eq!(third, (1.0f32 / 3.0f32) as f64);
        // A Python float operand is rounded to float32 first, as `t * 0.1` does.
        assert_eq!(
            eval(ElemFn::Mul, Prec::F32, 3.0, 0.1),
            (3.0f32 * 0.1f32) as f64
        );
        assert_eq!(eval(ElemFn::Cast, Prec::F32, 0.1, 0.0), 0.1f32 as f64);
        assert_eq!(eval(ElemFn::Cast, Prec::F64, 0.1, 0.0), 0.1);
        assert!(eval(ElemFn::Div, Prec::F64, 1.0, 0.0).is_infinite());
        for &f in ElemFn::ALL {
            assert_eq!(ElemFn::from_name(f.name()), Some(f));
        }
    }
}
