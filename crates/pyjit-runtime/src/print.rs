//! PyTorch's `repr(tensor)` (torch/_tensor_str.py with default print options: precision 4,
//! linewidth 80, threshold 1000, edgeitems 3) and Python's float `repr`.

use std::fmt;

use crate::dtype::{DEFAULT_FLOAT, DType};
use crate::tensor::Tensor;

const PRECISION: usize = 4;
const LINEWIDTH: usize = 80;
const THRESHOLD: usize = 1000;
const EDGEITEMS: usize = 3;

/// Python's `repr(float)`: the shortest string that round-trips, positional for exponents in
/// `[-4, 16)`, scientific (`1e-05`, `1.5e+16`) otherwise; `inf`, `-inf`, `nan`.
pub fn python_float_repr(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if x == 0.0 {
        return if x.is_sign_negative() {
            "-0.0".into()
        } else {
            "0.0".into()
        };
    }
    let sci = format!("{x:e}");
    let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if (-4..16).contains(&exp) {
        let s = format!("{x}");
        if s.contains('.') { s } else { format!("{s}.0") }
    } else {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mant}e{sign}{:02}", exp.abs())
    }
}

/// Python's `'{:.{p}e}'.format(x)`.
fn fmt_sci(x: f64, p: usize) -> String {
    if !x.is_finite() {
        return nonfinite(x);
    }
    let s = format!("{x:.p$e}");
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{mant}e{sign}{:02}", exp.abs())
}

/// Python's `'{:.{p}f}'.format(x)`.
fn fmt_fixed(x: f64, p: usize) -> String {
    if !x.is_finite() {
        return nonfinite(x);
    }
    format!("{x:.p$}")
}

fn nonfinite(x: f64) -> String {
    if x.is_nan() {
        "nan".into()
    } else if x > 0.0 {
        "inf".into()
    } else {
        "-inf".into()
    }
}

/// The element formatter of `_tensor_str.py`.
struct Formatter {
    floating: bool,
    int_mode: bool,
    sci_mode: bool,
    max_width: usize,
}

impl Formatter {
    fn new(dtype: DType, values: &[f64], ints: &[String]) -> Formatter {
        let mut f = Formatter {
            floating: dtype.is_float(),
            int_mode: true,
            sci_mode: false,
            max_width: 1,
        };
        if !f.floating {
            f.max_width = ints.iter().map(|s| s.len()).max().unwrap_or(1).max(1);
            return f;
        }
        let nz: Vec<f64> = values
            .iter()
            .copied()
            .filter(|v| v.is_finite() && *v != 0.0)
            .collect();
        if nz.is_empty() {
            return f;
        }
        let min = nz.iter().map(|v| v.abs()).fold(f64::INFINITY, f64::min);
        let max = nz.iter().map(|v| v.abs()).fold(0.0, f64::max);
        f.int_mode = nz.iter().all(|v| *v == v.ceil());
        // The widest of the non-zero finite values written by `text`.
        let widest =
            |text: &dyn Fn(f64) -> String| nz.iter().map(|&v| text(v).len()).max().unwrap_or(1);
        let sci = if f.int_mode {
            max / min > 1000.0 || max > 1.0e8
        } else {
            max / min > 1000.0 || max > 1.0e8 || min < 1.0e-4
        };
        f.sci_mode = sci;
        f.max_width = if sci {
            widest(&|v| fmt_sci(v, PRECISION))
        } else if f.int_mode {
            widest(&|v| fmt_fixed(v, 0)) + 1
        } else {
            widest(&|v| fmt_fixed(v, PRECISION))
        };
        f.max_width = f.max_width.max(1);
        f
    }

    fn format(&self, v: f64, int_text: &str) -> String {
        let s = if self.floating {
            if self.sci_mode {
                fmt_sci(v, PRECISION)
            } else if self.int_mode {
                let mut s = fmt_fixed(v, 0);
                if v.is_finite() {
                    s.push('.');
                }
                s
            } else {
                fmt_fixed(v, PRECISION)
            }
        } else {
            int_text.to_string()
        };
        format!("{:>w$}", s, w = self.max_width)
    }
}

/// Element text for non-float tensors (Python's `str(int)` / `True`).
fn int_text(t: &Tensor, i: usize) -> String {
    match t.get_linear(i) {
        crate::Scalar::Bool(true) => "True".into(),
        crate::Scalar::Bool(false) => "False".into(),
        crate::Scalar::Int(v) => v.to_string(),
        crate::Scalar::Float(f) => python_float_repr(f),
    }
}

/// The elements shown (all, or the edge items of each dim when summarizing), for the formatter.
pub(crate) fn summarized_indices(shape: &[usize], summarize: bool) -> Vec<Vec<usize>> {
    let mut out = vec![vec![]];
    for &n in shape {
        let idx: Vec<usize> = if summarize && n > 2 * EDGEITEMS {
            (0..EDGEITEMS).chain(n - EDGEITEMS..n).collect()
        } else {
            (0..n).collect()
        };
        let mut next = Vec::with_capacity(out.len() * idx.len());
        for prefix in &out {
            for &i in &idx {
                let mut p = prefix.clone();
                p.push(i);
                next.push(p);
            }
        }
        out = next;
    }
    out
}

pub(crate) fn linear_index(shape: &[usize], idx: &[usize]) -> usize {
    let mut lin = 0;
    for (n, i) in shape.iter().zip(idx) {
        lin = lin * n + i;
    }
    lin
}

struct Printer<'a> {
    t: &'a Tensor,
    fmt: Formatter,
    summarize: bool,
}

impl Printer<'_> {
    fn elem(&self, idx: &[usize]) -> String {
        let lin = linear_index(self.t.shape(), idx);
        let v = self.t.get_linear(lin).to_f64();
        let text = if self.fmt.floating {
            String::new()
        } else {
            int_text(self.t, lin)
        };
        self.fmt.format(v, &text)
    }

    /// `text` of each printed index `i` of the next dimension (of size `n`; with `i` pushed on
    /// `prefix`): all of them, or when summarizing the first and last [`EDGEITEMS`] around
    /// `ellipsis`.
    fn each_shown(
        &self,
        n: usize,
        prefix: &mut Vec<usize>,
        ellipsis: &str,
        text: impl Fn(&mut Vec<usize>) -> String,
    ) -> Vec<String> {
        let summary = self.summarize && n > 2 * EDGEITEMS;
        let (head, tail) = if summary {
            (EDGEITEMS, n - EDGEITEMS)
        } else {
            (n, n)
        };
        let mut out = Vec::new();
        for i in (0..head)
            .map(Some)
            .chain(summary.then_some(None))
            .chain((tail..n).map(Some))
        {
            let Some(i) = i else {
                out.push(ellipsis.to_string());
                continue;
            };
            prefix.push(i);
            out.push(text(prefix));
            prefix.pop();
        }
        out
    }

    fn tensor_str(&self, prefix: &mut Vec<usize>, indent: usize) -> String {
        let shape = self.t.shape();
        let d = prefix.len();
        let dim = shape.len() - d;
        let n = shape[d];
        if dim == 1 {
            let element_length = self.fmt.max_width + 2;
            let per_line = ((LINEWIDTH.saturating_sub(indent)) / element_length).max(1);
            let data = self.each_shown(n, prefix, " ...", |prefix| self.elem(prefix));
            let lines: Vec<String> = data.chunks(per_line).map(|c| c.join(", ")).collect();
            return format!(
                "[{}]",
                lines.join(&format!(",\n{}", " ".repeat(indent + 1)))
            );
        }
        let slices = self.each_shown(n, prefix, "...", |prefix| {
            self.tensor_str(prefix, indent + 1)
        });
        let sep = format!(",{}{}", "\n".repeat(dim - 1), " ".repeat(indent + 1));
        format!("[{}]", slices.join(&sep))
    }
}

/// `repr(t)` exactly as PyTorch prints it.
pub fn tensor_repr(t: &Tensor) -> String {
    let prefix = "tensor(";
    let indent = prefix.len();
    let mut suffixes = Vec::new();
    let body = if t.numel() == 0 {
        if t.dim() != 1 {
            let dims: Vec<String> = t.shape().iter().map(|d| d.to_string()).collect();
            let tuple = if dims.len() == 1 {
                format!("({},)", dims[0])
            } else {
                format!("({})", dims.join(", "))
            };
            suffixes.push(format!("size={tuple}"));
        }
        if t.dtype() != DEFAULT_FLOAT {
            suffixes.push(format!("dtype={}", t.dtype()));
        }
        "[]".to_string()
    } else {
        if !matches!(t.dtype(), DType::Float32 | DType::Int64 | DType::Bool) {
            suffixes.push(format!("dtype={}", t.dtype()));
        }
        let summarize = t.numel() > THRESHOLD;
        let shown = summarized_indices(t.shape(), summarize);
        let lins: Vec<usize> = shown.iter().map(|i| linear_index(t.shape(), i)).collect();
        let values: Vec<f64> = lins.iter().map(|&l| t.get_linear(l).to_f64()).collect();
        let ints: Vec<String> = if t.dtype().is_float() {
            vec![]
        } else {
            lins.iter().map(|&l| int_text(t, l)).collect()
        };
        let fmt = Formatter::new(t.dtype(), &values, &ints);
        if t.dim() == 0 {
            let text = if fmt.floating {
                String::new()
            } else {
                int_text(t, 0)
            };
            fmt.format(t.get_linear(0).to_f64(), &text)
        } else {
            let p = Printer { t, fmt, summarize };
            p.tensor_str(&mut Vec::new(), indent)
        }
    };
    let mut out = format!("{prefix}{body}");
    // Python: `len(s) - s.rfind("\n") + 1`, with rfind = -1 when there is no newline.
    let mut last_line_len = match out.rfind('\n') {
        Some(i) => out.len() - i + 1,
        None => out.len() + 2,
    };
    for s in suffixes {
        if last_line_len + s.len() + 2 > LINEWIDTH {
            out.push_str(&format!(",\n{}{}", " ".repeat(indent), s));
            last_line_len = indent + s.len();
        } else {
            out.push_str(&format!(", {s}"));
            last_line_len += s.len() + 2;
        }
    }
    out.push(')');
    out
}

impl fmt::Display for Tensor {
    /// PyTorch's `repr`/`str` of a tensor.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&tensor_repr(self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_floats() {
        assert_eq!(python_float_repr(2.0), "2.0");
        assert_eq!(python_float_repr(0.1), "0.1");
        assert_eq!(python_float_repr(1e-5), "1e-05");
        assert_eq!(python_float_repr(1.5e16), "1.5e+16");
        assert_eq!(python_float_repr(1e15), "1000000000000000.0");
        assert_eq!(python_float_repr(-0.0), "-0.0");
        assert_eq!(python_float_repr(0.0001), "0.0001");
        assert_eq!(python_float_repr(f64::NAN), "nan");
    }

    #[test]
    fn tensor_reprs() {
        let t = Tensor::from_slice(&[1.0f32, 2.0]);
        assert_eq!(t.to_string(), "tensor([1., 2.])");
        let t = Tensor::from_slice(&[1.5f32, 2.25]);
        assert_eq!(t.to_string(), "tensor([1.5000, 2.2500])");
        let t = Tensor::from_vec(vec![1i64, 2, 3, 4], &[2, 2]).unwrap();
        assert_eq!(t.to_string(), "tensor([[1, 2],\n        [3, 4]])");
        assert_eq!(
            Tensor::scalar(crate::Scalar::Bool(true)).to_string(),
            "tensor(True)"
        );
        let t = Tensor::from_slice(&[1.0f64, 2.0]);
        assert_eq!(t.to_string(), "tensor([1., 2.], dtype=torch.float64)");
        let t = Tensor::from_slice(&[1e10f32, 1.0]);
        assert_eq!(t.to_string(), "tensor([1.0000e+10, 1.0000e+00])");
        let t = Tensor::from_slice(&[f32::NAN, f32::INFINITY, -0.0, 1.0]);
        assert_eq!(t.to_string(), "tensor([nan, inf, -0., 1.])");
        let t = Tensor::from_slice(&[true, false]).reshape(&[1, 2]).unwrap();
        assert_eq!(t.to_string(), "tensor([[ True, False]])");
        assert_eq!(
            Tensor::zeros(&[2, 0, 3], DType::Float32)
                .unwrap()
                .to_string(),
            "tensor([], size=(2, 0, 3))"
        );
        assert_eq!(
            Tensor::zeros(&[0], DType::Int64).unwrap().to_string(),
            "tensor([], dtype=torch.int64)"
        );
        assert_eq!(
            Tensor::from_slice(&[1i32, 2]).to_string(),
            "tensor([1, 2], dtype=torch.int32)"
        );
        let t = crate::ops::arange(
            crate::Scalar::Float(0.0),
            crate::Scalar::Int(2000),
            crate::Scalar::Int(1),
            None,
        )
        .unwrap();
        assert_eq!(
            t.to_string(),
            "tensor([0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 1.9970e+03, 1.9980e+03,\n        1.9990e+03])"
        );
    }
}
