//! NumPy's `repr` and `str` of arrays and of NumPy scalars, for the results of NumPy-style
//! programs (`array([1. , 2.5], dtype=float32)`, `np.float64(6.0)`): NumPy 2's
//! `numpy/_core/arrayprint.py` with the default print options (precision 8, floatmode
//! `'maxprec'`, linewidth 75, threshold 1000, edgeitems 3, sign `'-'`, no small-number
//! suppression). [`crate::print`] is PyTorch's; the expected texts of the tests come from real
//! NumPy (`tests/oracle/numpy_repr/gen.py`).
//!
//! Element formats (`_get_format_function`):
//! - bool: `' True'`/`'False'` (`'True'` in a 0-d array);
//! - int: right-aligned to the longer of `str(max)` and `str(min)`;
//! - float: each element the shortest text that reads back as the same value of its dtype, with
//!   at most 8 digits after the point (rounded from the exact value when it needs more), trailing
//!   zeros dropped but the point kept (`1.`), padded so the points line up; scientific
//!   (`1.5e-05`) when a non-zero magnitude is `>= 1e8` or `< 1e-4` or the largest over the
//!   smallest is `> 1000` (compared in the dtype's precision), then with one fraction width and
//!   exponent width for all elements; `nan`/`inf` right-aligned in the same width.

use crate::dtype::DType;
use crate::print::{linear_index, summarized_indices};
use crate::tensor::Tensor;
use crate::value::Scalar;

const PRECISION: usize = 8;
const LINEWIDTH: usize = 75;
const THRESHOLD: usize = 1000;
const EDGEITEMS: usize = 3;

/// `repr(a)` as NumPy prints it: `array([1, 2, 3])`, `array([0.5], dtype=float32)`,
/// `array([], shape=(0, 2), dtype=float64)`; a 0-d array as `array(1.5)`.
pub fn numpy_array_repr(t: &Tensor) -> String {
    let prefix = "array(";
    let body = if t.numel() == 0 {
        "[]".to_string()
    } else {
        // `array2string(..., suffix=")")` takes the suffix off the line width.
        array2string(t, ", ", prefix, LINEWIDTH - 1)
    };
    let mut extras = Vec::new();
    let size = t.numel();
    if (size == 0 && t.shape() != [0]) || size > THRESHOLD {
        extras.push(format!("shape={}", shape_tuple(t.shape())));
    }
    if !matches!(t.dtype(), DType::Float64 | DType::Int64 | DType::Bool) || size == 0 {
        extras.push(format!("dtype={}", t.dtype().name()));
    }
    if extras.is_empty() {
        return format!("{prefix}{body})");
    }
    let arr = format!("{prefix}{body},");
    let extra = format!("{})", extras.join(", "));
    let last_line_len = arr.len() - arr.rfind('\n').map_or(0, |i| i + 1);
    let spacer = if last_line_len + extra.len() + 1 > LINEWIDTH {
        format!("\n{}", " ".repeat(prefix.len()))
    } else {
        " ".to_string()
    };
    format!("{arr}{spacer}{extra}")
}

/// `str(a)` as NumPy prints it (what `print(a)` shows): `[1. 2. 3.]`; a 0-d array as the `str`
/// of its scalar (`1.5`).
pub fn numpy_array_str(t: &Tensor) -> String {
    if t.dim() == 0 {
        return match t.get_linear(0) {
            Scalar::Bool(b) => if b { "True" } else { "False" }.to_string(),
            Scalar::Int(i) => i.to_string(),
            Scalar::Float(x) => float_scalar_text(x, t.dtype()),
        };
    }
    if t.numel() == 0 {
        return "[]".to_string();
    }
    array2string(t, " ", "", LINEWIDTH)
}

/// `repr` of the NumPy scalar a 0-d array holds (what NumPy's reductions and element reads
/// return): `np.float64(6.0)`, `np.float32(0.1)`, `np.int64(3)`, `np.True_`.
pub fn numpy_scalar_repr(t: &Tensor) -> String {
    match t.get_linear(0) {
        Scalar::Bool(b) => if b { "np.True_" } else { "np.False_" }.to_string(),
        Scalar::Int(i) => format!("np.{}({i})", t.dtype().name()),
        Scalar::Float(x) => format!(
            "np.{}({})",
            t.dtype().name(),
            float_scalar_text(x, t.dtype())
        ),
    }
}

/// NumPy's `repr` of an array's value in a NumPy-style program's result: a 0-d array shows as
/// the scalar NumPy would have returned ([`numpy_scalar_repr`]), any other as
/// [`numpy_array_repr`].
pub fn numpy_repr(t: &Tensor) -> String {
    if t.dim() == 0 {
        numpy_scalar_repr(t)
    } else {
        numpy_array_repr(t)
    }
}

/// A shape as the Python tuple NumPy prints: `(0,)`, `(2, 3)`.
fn shape_tuple(shape: &[usize]) -> String {
    match shape {
        [n] => format!("({n},)"),
        _ => {
            let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
            format!("({})", dims.join(", "))
        }
    }
}

/// A float scalar's `str`/`repr` text: float64 as Python's float repr; float32 from the
/// shortest digits of the float32 value, positional with at least one fraction digit (`0.1`,
/// `1.0`) when it is zero or its magnitude in `[1e-4, 1e16)` (NumPy compares the value, so
/// float32's `0.0001`, just below 1e-4, prints `1e-04`), scientific otherwise (`1e-05`).
fn float_scalar_text(x: f64, dtype: DType) -> String {
    if dtype != DType::Float32 || !x.is_finite() {
        return crate::print::python_float_repr(x);
    }
    let d = Digits::shortest(x, true);
    if x == 0.0 || (1e-4..1e16).contains(&x.abs()) {
        let mut s = d.positional(None);
        if s.ends_with('.') {
            s.push('0');
        }
        return s;
    }
    let frac = &d.digits[1..];
    let point = if frac.is_empty() { "" } else { "." };
    let sign = if d.negative { "-" } else { "" };
    let e = d.exp;
    format!(
        "{sign}{}{point}{frac}e{}{:02}",
        &d.digits[..1],
        if e < 0 { '-' } else { '+' },
        e.abs()
    )
}

/// A finite value's decimal digits `d.ddd × 10^exp` (no leading or trailing zeros; `"0"` for
/// zero), with its sign.
struct Digits {
    negative: bool,
    digits: String,
    exp: i32,
}

impl Digits {
    /// From Rust's `{:e}` text (`-1.25e-3`).
    fn from_sci(text: &str) -> Digits {
        let (negative, text) = match text.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let (mant, exp) = text.split_once('e').unwrap_or((text, "0"));
        let digits: String = mant.chars().filter(|c| c.is_ascii_digit()).collect();
        let digits = digits.trim_end_matches('0');
        Digits {
            negative,
            digits: if digits.is_empty() { "0" } else { digits }.to_string(),
            exp: exp.parse().unwrap_or(0),
        }
    }

    /// The shortest digits that read back as `x` in its dtype (float32 when `f32`).
    fn shortest(x: f64, f32: bool) -> Digits {
        Digits::from_sci(&if f32 {
            format!("{:e}", x as f32)
        } else {
            format!("{x:e}")
        })
    }

    /// `x` rounded (from its exact value, ties to even) to `frac` digits after the point.
    fn fixed(x: f64, f32: bool, frac: usize) -> String {
        if f32 {
            format!("{:.frac$}", x as f32)
        } else {
            format!("{x:.frac$}")
        }
    }

    /// `x` rounded (from its exact value) to `frac` digits after the first significant one.
    fn sci(x: f64, f32: bool, frac: usize) -> Digits {
        Digits::from_sci(&if f32 {
            format!("{:.frac$e}", x as f32)
        } else {
            format!("{x:.frac$e}")
        })
    }

    /// Digits after the point in positional notation.
    fn frac_len(&self) -> usize {
        (self.digits.len() as i32 - 1 - self.exp).max(0) as usize
    }

    /// Positional text with the point always written and no trailing zeros after it (`1.`,
    /// `0.25`, `-120.`); with `frac` at least that many digits after the point (zeros).
    fn positional(&self, frac: Option<usize>) -> String {
        let mut s = String::new();
        if self.negative {
            s.push('-');
        }
        let n = self.digits.len() as i32;
        if self.exp < 0 {
            s.push_str("0.");
            s.push_str(&"0".repeat((-self.exp - 1) as usize));
            s.push_str(&self.digits);
        } else if self.exp + 1 >= n {
            s.push_str(&self.digits);
            s.push_str(&"0".repeat((self.exp + 1 - n) as usize));
            s.push('.');
        } else {
            let (int, fr) = self.digits.split_at(self.exp as usize + 1);
            s.push_str(int);
            s.push('.');
            s.push_str(fr);
        }
        if self.digits == "0" {
            s = if self.negative { "-0." } else { "0." }.to_string();
        }
        if let Some(min) = frac {
            let have = s.len() - s.find('.').map_or(s.len(), |i| i + 1);
            s.push_str(&"0".repeat(min.saturating_sub(have)));
        }
        s
    }
}

/// `dragon4_positional(x, precision=8, unique=True, fractional=True, trim='.')`: the shortest
/// digits, or the value rounded to 8 digits after the point when the shortest needs more.
fn positional_text(x: f64, f32: bool) -> String {
    let d = Digits::shortest(x, f32);
    if d.frac_len() <= PRECISION {
        return d.positional(None);
    }
    // `{:.8}` always writes the point; the zeros it pads with go.
    Digits::fixed(x, f32, PRECISION)
        .trim_end_matches('0')
        .to_string()
}

/// `dragon4_scientific(x, precision, unique=True)`: the mantissa's sign and integer digit, its
/// fraction digits (trailing zeros dropped) and the exponent.
fn scientific_parts(x: f64, f32: bool, precision: usize) -> (String, String, i32) {
    let mut d = Digits::shortest(x, f32);
    if d.digits.len() - 1 > precision {
        d = Digits::sci(x, f32, precision);
    }
    let int = format!("{}{}", if d.negative { "-" } else { "" }, &d.digits[..1]);
    (int, d.digits[1..].to_string(), d.exp)
}

/// How each element of one array is written.
enum ElemFormat {
    /// `' True'` in arrays, `'True'` in 0-d arrays.
    Bool {
        true_text: &'static str,
    },
    Int {
        width: usize,
    },
    Float(FloatFormat),
}

/// `FloatingFormat` after `fillFormat`.
struct FloatFormat {
    f32: bool,
    exp_format: bool,
    /// Scientific: the fraction digits every element gets.
    precision: usize,
    pad_left: usize,
    pad_right: usize,
    /// Scientific: the exponent's digits.
    exp_size: usize,
}

impl FloatFormat {
    fn new(values: &[f64], f32: bool) -> FloatFormat {
        let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
        let abs_non_zero: Vec<f64> = finite
            .iter()
            .filter(|v| **v != 0.0)
            .map(|v| v.abs())
            .collect();
        let mut exp_format = false;
        if !abs_non_zero.is_empty() {
            let max = abs_non_zero.iter().copied().fold(f64::MIN, f64::max);
            let min = abs_non_zero.iter().copied().fold(f64::MAX, f64::min);
            // The comparisons and the ratio in the array's own precision.
            exp_format = if f32 {
                let (max, min) = (max as f32, min as f32);
                max >= 1.0e8 || min < 0.0001 || max / min > 1000.0
            } else {
                max >= 1.0e8 || min < 0.0001 || max / min > 1000.0
            };
        }
        let mut f = FloatFormat {
            f32,
            exp_format,
            precision: PRECISION,
            pad_left: 0,
            pad_right: 0,
            exp_size: 0,
        };
        if finite.is_empty() {
            f.exp_format = false;
        } else if exp_format {
            let parts: Vec<(String, String, i32)> = finite
                .iter()
                .map(|&x| scientific_parts(x, f32, PRECISION))
                .collect();
            f.exp_size = parts
                .iter()
                .map(|(_, _, e)| e.unsigned_abs().to_string().len().max(2))
                .max()
                .unwrap_or(2);
            f.precision = parts.iter().map(|(_, fr, _)| fr.len()).max().unwrap_or(0);
            f.pad_left = parts.iter().map(|(i, _, _)| i.len()).max().unwrap_or(1);
            f.pad_right = f.exp_size + 2 + f.precision;
        } else {
            let texts: Vec<String> = finite.iter().map(|&x| positional_text(x, f32)).collect();
            for t in &texts {
                let (int, fr) = t.split_once('.').unwrap_or((t, ""));
                f.pad_left = f.pad_left.max(int.len());
                f.pad_right = f.pad_right.max(fr.len());
            }
        }
        if finite.len() != values.len() {
            let neg_inf = values.iter().any(|v| v.is_infinite() && *v < 0.0);
            let offset = f.pad_right + 1;
            f.pad_left = f
                .pad_left
                .max(3usize.saturating_sub(offset))
                .max((3 + neg_inf as usize).saturating_sub(offset));
        }
        f
    }

    fn format(&self, x: f64) -> String {
        if !x.is_finite() {
            let text = if x.is_nan() {
                "nan"
            } else if x < 0.0 {
                "-inf"
            } else {
                "inf"
            };
            let width = self.pad_left + self.pad_right + 1;
            return format!("{text:>width$}");
        }
        if self.exp_format {
            // `min_digits` = precision: digits past the shortest ones continue the exact value
            // (float32's 536.7051 is 5.3670508e+02 beside a 7-digit element), rounded.
            let d = Digits::sci(x, self.f32, self.precision);
            let int = format!("{}{}", if d.negative { "-" } else { "" }, &d.digits[..1]);
            let mut frac = d.digits[1..].to_string();
            let exp = d.exp;
            frac.push_str(&"0".repeat(self.precision.saturating_sub(frac.len())));
            let sign = if exp < 0 { '-' } else { '+' };
            let digits = format!("{:0w$}", exp.unsigned_abs(), w = self.exp_size);
            format!("{int:>w$}.{frac}e{sign}{digits}", w = self.pad_left)
        } else {
            let text = positional_text(x, self.f32);
            let (int, frac) = text.split_once('.').unwrap_or((&text, ""));
            format!(
                "{int:>l$}.{frac:<r$}",
                l = self.pad_left,
                r = self.pad_right
            )
        }
    }
}

impl ElemFormat {
    fn new(t: &Tensor, shown: &[Scalar]) -> ElemFormat {
        match t.dtype() {
            DType::Bool => ElemFormat::Bool {
                true_text: if t.dim() == 0 { "True" } else { " True" },
            },
            DType::Int32 | DType::Int64 => {
                let ints = shown.iter().filter_map(|s| match s {
                    Scalar::Int(i) => Some(*i),
                    _ => None,
                });
                let (min, max) =
                    ints.fold((i64::MAX, i64::MIN), |(lo, hi), v| (lo.min(v), hi.max(v)));
                ElemFormat::Int {
                    width: min.to_string().len().max(max.to_string().len()),
                }
            }
            DType::Float32 | DType::Float64 => {
                let values: Vec<f64> = shown.iter().map(|s| s.to_f64()).collect();
                ElemFormat::Float(FloatFormat::new(&values, t.dtype() == DType::Float32))
            }
        }
    }

    fn format(&self, s: Scalar) -> String {
        match (self, s) {
            (ElemFormat::Bool { true_text }, Scalar::Bool(b)) => {
                if b { true_text } else { "False" }.to_string()
            }
            (ElemFormat::Int { width }, Scalar::Int(i)) => format!("{i:>width$}"),
            (ElemFormat::Float(f), s) => f.format(s.to_f64()),
            (_, s) => s.to_f64().to_string(),
        }
    }
}

/// `array2string(a, separator=sep, prefix=prefix)` of a non-empty array, lines at most
/// `line_width` wide.
fn array2string(t: &Tensor, separator: &str, prefix: &str, line_width: usize) -> String {
    let summarize = t.numel() > THRESHOLD;
    let shown: Vec<Scalar> = summarized_indices(t.shape(), summarize)
        .iter()
        .map(|i| t.get_linear(linear_index(t.shape(), i)))
        .collect();
    let fmt = ElemFormat::new(t, &shown);
    let printer = ArrayPrinter {
        t,
        fmt,
        separator,
        summary: summarize,
    };
    let hanging = format!(" {}", " ".repeat(prefix.len()));
    printer.recurse(&mut Vec::new(), &hanging, line_width)
}

struct ArrayPrinter<'a> {
    t: &'a Tensor,
    fmt: ElemFormat,
    separator: &'a str,
    summary: bool,
}

impl ArrayPrinter<'_> {
    /// `_formatArray`'s `recurser`.
    fn recurse(&self, index: &mut Vec<usize>, hanging: &str, width: usize) -> String {
        let shape = self.t.shape();
        let axis = index.len();
        if axis == shape.len() {
            let lin = linear_index(shape, index);
            return self.fmt.format(self.t.get_linear(lin));
        }
        let axes_left = shape.len() - axis;
        let next_hanging = format!("{hanging} ");
        let next_width = width.saturating_sub(1);
        let n = shape[axis];
        let show_summary = self.summary && 2 * EDGEITEMS < n;
        let (leading, trailing) = if show_summary {
            (EDGEITEMS, EDGEITEMS)
        } else {
            (0, n)
        };
        let word = |i: usize, index: &mut Vec<usize>| {
            index.push(i);
            let w = self.recurse(index, &next_hanging, next_width);
            index.pop();
            w
        };
        let mut s = String::new();
        if axes_left == 1 {
            let sep_width = self.separator.trim_end().len().max(1);
            let elem_width = width.saturating_sub(sep_width);
            let mut line = hanging.to_string();
            for i in 0..leading {
                let w = word(i, index);
                extend_line(&mut s, &mut line, &w, elem_width, hanging);
                line.push_str(self.separator);
            }
            if show_summary {
                extend_line(&mut s, &mut line, "...", elem_width, hanging);
                line.push_str(self.separator);
            }
            for i in (2..=trailing).rev() {
                let w = word(n - i, index);
                extend_line(&mut s, &mut line, &w, elem_width, hanging);
                line.push_str(self.separator);
            }
            let w = word(n - 1, index);
            extend_line(&mut s, &mut line, &w, elem_width, hanging);
            s.push_str(&line);
        } else {
            let line_sep = format!(
                "{}{}",
                self.separator.trim_end(),
                "\n".repeat(axes_left - 1)
            );
            for i in 0..leading {
                let w = word(i, index);
                s.push_str(&format!("{hanging}{w}{line_sep}"));
            }
            if show_summary {
                s.push_str(&format!("{hanging}...{line_sep}"));
            }
            for i in (2..=trailing).rev() {
                let w = word(n - i, index);
                s.push_str(&format!("{hanging}{w}{line_sep}"));
            }
            let w = word(n - 1, index);
            s.push_str(&format!("{hanging}{w}"));
        }
        format!("[{}]", &s[hanging.len()..])
    }
}

/// `_extendLine`: `word` goes on `line`, which first goes to `s` when the word would pass
/// `width` (unless the line holds only the hanging indent).
fn extend_line(s: &mut String, line: &mut String, word: &str, width: usize, hanging: &str) {
    let needs_wrap = line.len() + word.len() > width && line.len() > hanging.len();
    if needs_wrap {
        s.push_str(line.trim_end());
        s.push('\n');
        *line = hanging.to_string();
    }
    line.push_str(word);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f64s(v: &[f64], shape: &[usize]) -> Tensor {
        Tensor::from_vec(v.to_vec(), shape).unwrap()
    }

    #[test]
    fn small_arrays_print_as_numpy() {
        assert_eq!(
            numpy_array_repr(&f64s(&[1.0, 2.5], &[2])),
            "array([1. , 2.5])"
        );
        assert_eq!(numpy_array_str(&f64s(&[1.0, 2.5], &[2])), "[1.  2.5]");
        assert_eq!(
            numpy_array_repr(&f64s(&[1e-5, 1.0], &[2])),
            "array([1.e-05, 1.e+00])"
        );
        assert_eq!(numpy_scalar_repr(&f64s(&[6.0], &[])), "np.float64(6.0)");
        assert_eq!(numpy_array_repr(&f64s(&[6.0], &[])), "array(6.)");
    }
}
