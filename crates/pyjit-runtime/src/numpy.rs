//! NumPy's conventions over the op table: the one place where the NumPy spelling of a call
//! (`np.var(a)`, `np.full(s, True)`, `np.arange(0.0, 1.0, 0.25)`, `a.std(ddof=1)`) becomes the
//! arguments of the op that [`crate::schema::numpy_function`] maps it to, and where the
//! Python-level defaults of PyTorch's wrappers (`torch.norm(x, dim=1)`) are supplied.
//!
//! Both front ends (the script compiler and the tracer) describe the call's arguments with
//! [`ArgKind`] and apply what [`numpy_call`] / [`python_level_defaults`] return with their own
//! value types, so the two cannot disagree on a convention.
//!
//! The conventions (each checked against real NumPy by the facade's `numpy_conventions` test):
//! - creation defaults to float64 where PyTorch's default is float32: `zeros`, `ones`, `empty`,
//!   `eye`, `linspace` always, `arange` when an argument is a float, `array` (`tensor`) of data
//!   containing a float;
//! - `np.full(shape, v)` takes its dtype from the fill value: float64 for a float, int64 for an
//!   int, bool for a bool;
//! - `np.var`/`np.std` (functions and array methods) default to `ddof=0`; `ddof` is the op's
//!   `correction`;
//! - `axis`/`keepdims` are accepted by [`crate::bind`] as `dim`/`keepdim` (not here).

use crate::DType;

/// What a front end knows statically about one positional argument of a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgKind {
    /// A Python `int`.
    Int,
    /// A Python `float`.
    Float,
    /// A Python `bool`.
    Bool,
    /// A (nested) list or tuple whose elements include a float.
    FloatData,
    /// Anything else (a tensor, a list of ints, a dtype …).
    Other,
}

/// A keyword argument a convention adds to the op call.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Added {
    /// `dtype=...`
    DType(DType),
    /// An int value (`correction=0`, `p=2`).
    Int(i64),
}

/// NumPy's name for a keyword argument, as the op's parameter (`ddof` is `correction`).
pub fn numpy_keyword(name: &str) -> &str {
    match name {
        "ddof" => "correction",
        other => other,
    }
}

/// Whether a module importing these modules (canonical dotted names, `numpy`, `torch.nn`) is
/// NumPy-style: array methods then follow NumPy (`a.std()` has `ddof=0`, `a.max(axis=0)` is
/// values only). A module that imports torch is torch-style.
pub fn numpy_mode<'a>(imported: impl IntoIterator<Item = &'a str>) -> bool {
    let (mut numpy, mut torch) = (false, false);
    for m in imported {
        let root = m.split('.').next().unwrap_or(m);
        numpy |= root == "numpy";
        torch |= root == "torch";
    }
    numpy && !torch
}

/// The keyword arguments to add so that op `op` (the name [`crate::schema::numpy_function`]
/// gave, or the op a NumPy-style array method resolved to) behaves as NumPy's: `positional`
/// describes the positional arguments (for a method, the receiver first), `keywords` names the
/// keyword arguments given, already renamed by [`numpy_keyword`].
pub fn numpy_call(
    op: &str,
    positional: &[ArgKind],
    keywords: &[&str],
) -> Vec<(&'static str, Added)> {
    let has = |k: &str| keywords.contains(&k);
    let mut add = Vec::new();
    if !has("dtype") {
        let dtype = match op {
            "zeros" | "ones" | "empty" | "eye" | "linspace" => Some(DType::Float64),
            "full" => match positional.get(1) {
                Some(ArgKind::Float) => Some(DType::Float64),
                Some(ArgKind::Int) => Some(DType::Int64),
                Some(ArgKind::Bool) => Some(DType::Bool),
                _ => None,
            },
            "arange" => positional
                .contains(&ArgKind::Float)
                .then_some(DType::Float64),
            "tensor" => matches!(
                positional.first(),
                Some(ArgKind::FloatData | ArgKind::Float)
            )
            .then_some(DType::Float64),
            _ => None,
        };
        if let Some(d) = dtype {
            add.push(("dtype", Added::DType(d)));
        }
    }
    if matches!(op, "var" | "std") && !has("correction") && !has("unbiased") {
        add.push(("correction", Added::Int(0)));
    }
    add
}

/// Defaults that PyTorch's Python wrappers supply but the op schemas do not: `torch.norm(x,
/// dim=1)` is the 2-norm of each vector (`p` defaults to `"fro"`, which is the 2-norm), so `p=2`
/// is added when `dim` is given by keyword without `p`. `npositional` counts the positional
/// arguments including the receiver.
pub fn python_level_defaults(
    op: &str,
    npositional: usize,
    keywords: &[&str],
) -> Vec<(&'static str, Added)> {
    let mut add = Vec::new();
    if op == "norm" && npositional < 2 && keywords.contains(&"dim") && !keywords.contains(&"p") {
        add.push(("p", Added::Int(2)));
    }
    add
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn creation_dtypes() {
        use ArgKind::*;
        let d = |op, pos: &[ArgKind]| numpy_call(op, pos, &[]);
        assert_eq!(
            d("zeros", &[Other]),
            vec![("dtype", Added::DType(DType::Float64))]
        );
        assert_eq!(
            d("full", &[Other, Bool]),
            vec![("dtype", Added::DType(DType::Bool))]
        );
        assert_eq!(
            d("full", &[Other, Int]),
            vec![("dtype", Added::DType(DType::Int64))]
        );
        assert_eq!(
            d("arange", &[Int, Float]),
            vec![("dtype", Added::DType(DType::Float64))]
        );
        assert_eq!(d("arange", &[Int, Int]), vec![]);
        assert_eq!(
            d("tensor", &[FloatData]),
            vec![("dtype", Added::DType(DType::Float64))]
        );
        assert_eq!(numpy_call("zeros", &[Other], &["dtype"]), vec![]);
    }

    #[test]
    fn ddof() {
        assert_eq!(numpy_keyword("ddof"), "correction");
        assert_eq!(
            numpy_call("var", &[ArgKind::Other], &[]),
            vec![("correction", Added::Int(0))]
        );
        assert_eq!(
            numpy_call("std", &[ArgKind::Other], &["correction"]),
            vec![]
        );
    }

    #[test]
    fn modes_and_norm() {
        assert!(numpy_mode(["numpy", "math"]));
        assert!(!numpy_mode(["numpy", "torch.nn.functional"]));
        assert!(!numpy_mode(["math"]));
        assert_eq!(
            python_level_defaults("norm", 1, &["dim"]),
            vec![("p", Added::Int(2))]
        );
        assert_eq!(python_level_defaults("norm", 2, &["dim"]), vec![]);
        assert_eq!(python_level_defaults("norm", 1, &["keepdim"]), vec![]);
    }
}
