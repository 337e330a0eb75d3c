//! The five element types as Rust types, with PyTorch's conversions between them.

use std::fmt::Debug;

use crate::dtype::DType;
use crate::tensor::Buffer;

/// A Rust type that can be a tensor element. Conversions follow PyTorch (C++ casts): float → int
/// truncates toward zero (Rust's `as` saturates where C++ is undefined), int → narrower int
/// wraps, anything → bool is `!= 0`.
pub trait Element: Copy + Send + Sync + PartialOrd + Debug + Default + 'static {
    const DTYPE: DType;
    fn to_f64(self) -> f64;
    fn to_i64(self) -> i64;
    fn to_bool(self) -> bool;
    fn from_f64(v: f64) -> Self;
    fn from_i64(v: i64) -> Self;
    fn from_bool(v: bool) -> Self;
    #[doc(hidden)]
    fn vec_ref(b: &Buffer) -> Option<&[Self]>;
    #[doc(hidden)]
    fn vec_mut(b: &mut Buffer) -> Option<&mut [Self]>;
    #[doc(hidden)]
    fn into_buffer(v: Vec<Self>) -> Buffer;
    /// The owned vector of a buffer of this element type (`None` for another type or memory
    /// the runtime does not own).
    #[doc(hidden)]
    fn from_buffer(b: Buffer) -> Option<Vec<Self>>;

    /// Converts from another element type with PyTorch's cast rules.
    #[inline]
    fn cast_from<S: Element>(s: S) -> Self {
        match S::DTYPE {
            DType::Float32 | DType::Float64 => Self::from_f64(s.to_f64()),
            DType::Int32 | DType::Int64 => Self::from_i64(s.to_i64()),
            DType::Bool => Self::from_bool(s.to_bool()),
        }
    }

    #[inline]
    fn is_nan_elem(self) -> bool {
        false
    }
}

/// The buffer plumbing of the element type stored in variant `$dt` of [`Buffer`].
macro_rules! buffer_fns {
    ($dt:ident) => {
        fn vec_ref(b: &Buffer) -> Option<&[Self]> {
            match b {
                Buffer::$dt(v) => Some(v),
                Buffer::External(e) => e.as_slice::<Self>(),
                _ => None,
            }
        }
        fn vec_mut(b: &mut Buffer) -> Option<&mut [Self]> {
            match b {
                Buffer::$dt(v) => Some(v),
                Buffer::External(e) => e.as_mut_slice::<Self>(),
                _ => None,
            }
        }
        fn into_buffer(v: Vec<Self>) -> Buffer {
            Buffer::$dt(v)
        }
        fn from_buffer(b: Buffer) -> Option<Vec<Self>> {
            match b {
                Buffer::$dt(v) => Some(v),
                _ => None,
            }
        }
    };
}

/// An integer or float element type; `$from_f64` is its conversion of a float and `$is_nan`
/// whether a value is NaN.
macro_rules! impl_numeric {
    ($t:ty, $dt:ident, from_f64: |$v:ident| $from_f64:expr, is_nan: |$x:ident| $is_nan:expr) => {
        impl Element for $t {
            const DTYPE: DType = DType::$dt;
            #[inline]
            fn to_f64(self) -> f64 {
                self as f64
            }
            #[inline]
            fn to_i64(self) -> i64 {
                self as i64
            }
            #[inline]
            fn to_bool(self) -> bool {
                self != <$t>::default()
            }
            #[inline]
            fn from_f64($v: f64) -> Self {
                $from_f64
            }
            #[inline]
            fn from_i64(v: i64) -> Self {
                v as $t
            }
            #[inline]
            fn from_bool(v: bool) -> Self {
                v as u8 as $t
            }
            buffer_fns!($dt);
            #[inline]
            fn is_nan_elem(self) -> bool {
                let $x = self;
                $is_nan
            }
        }
    };
}

macro_rules! impl_int {
    ($t:ty, $dt:ident) => {
        impl_numeric!(
            $t,
            $dt,
            // C++ leaves out-of-range float->int conversion undefined; PyTorch on x86 yields
            // the "integer indefinite" value (the minimum), which we reproduce instead of
            // Rust's saturation so results match eager PyTorch bit for bit.
            from_f64: |v| if v.is_nan() || v >= -(<$t>::MIN as f64) || v < <$t>::MIN as f64 {
                <$t>::MIN
            } else {
                v as $t
            },
            is_nan: |_x| false
        );
    };
}

macro_rules! impl_float {
    ($t:ty, $dt:ident) => {
        impl_numeric!($t, $dt, from_f64: |v| v as $t, is_nan: |x| x.is_nan());
    };
}

impl_int!(i32, Int32);
impl_int!(i64, Int64);
impl_float!(f32, Float32);
impl_float!(f64, Float64);

impl Element for bool {
    const DTYPE: DType = DType::Bool;
    #[inline]
    fn to_f64(self) -> f64 {
        self as u8 as f64
    }
    #[inline]
    fn to_i64(self) -> i64 {
        self as i64
    }
    #[inline]
    fn to_bool(self) -> bool {
        self
    }
    #[inline]
    fn from_f64(v: f64) -> Self {
        v != 0.0
    }
    #[inline]
    fn from_i64(v: i64) -> Self {
        v != 0
    }
    #[inline]
    fn from_bool(v: bool) -> Self {
        v
    }
    buffer_fns!(Bool);
}

/// Runs `$body` with `$T` bound to the Rust element type of `$dt`.
#[macro_export]
#[doc(hidden)]
macro_rules! with_dtype {
    ($dt:expr, $T:ident => $body:expr) => {
        $crate::with_dtype!(@arms $dt, $T => $body;
            Bool: bool, Int32: i32, Int64: i64, Float32: f32, Float64: f64)
    };
    (@arms $dt:expr, $T:ident => $body:expr; $($variant:ident: $t:ty),*) => {
        match $dt {
            $($crate::DType::$variant => {
                type $T = $t;
                $body
            })*
        }
    };
}
