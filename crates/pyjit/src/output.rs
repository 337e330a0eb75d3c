//! The result formats of `pyjit run`: printed as Python prints it, or written with `-o` as
//! `.npy` / `.npz` (the format `tests/programs/README.md` documents):
//!
//! - `.npy`: a single tensor, or a scalar as a 0-d array (`int` → int64, `float` → float64,
//!   `bool` → bool), or a `List[int|float|bool]` as a 1-d array.
//! - `.npz`: a tuple's elements under `arr_0`, `arr_1`, …; any other result under `arr_0`;
//!   `List[int|float|bool]` as one 1-d array; other lists and tuples nested at key K as `K_0`,
//!   `K_1`, …; `None` as an archive with no entries.

use pyjit_interp::Value;
pub use pyjit_interp::format::TensorStyle;
use pyjit_interp::format::py_str;
use pyjit_interp::format::py_str_styled;
use pyjit_ir::Type;
use pyjit_runtime::{DType, Tensor};
use pyjit_syntax::SourceFile;
use std::path::Path;

/// What `print(result)` shows in Python.
pub fn display(v: &Value) -> String {
    py_str(v)
}

/// How `pyjit run` shows a result of a program in `style` ([`result_style`]): PyTorch-style as
/// [`display`]; NumPy-style as the Python prompt shows NumPy's values: an array by its `repr`
/// (`array([1. , 2.5], dtype=float32)`), a 0-d array as the NumPy scalar NumPy returns
/// (`np.float64(6.0)`), anything else as `print` shows it (elements of tuples and lists by
/// their `repr`, so arrays inside them as `array(...)` too).
pub fn display_styled(v: &Value, style: TensorStyle) -> String {
    match (v, style) {
        (Value::Tensor(t), TensorStyle::NumPy) => pyjit_runtime::print_numpy::numpy_repr(t),
        _ => py_str_styled(v, style),
    }
}

/// The printing conventions of `source`'s results: NumPy's for a NumPy-style module (it imports
/// numpy and not torch, [`pyjit_runtime::numpy::numpy_mode`]), PyTorch's otherwise (and when the
/// source does not parse).
pub fn result_style(source: &SourceFile) -> TensorStyle {
    match pyjit_syntax::parse_module(source) {
        Ok(module) if pyjit_script::types_from_arguments(&module) => TensorStyle::NumPy,
        _ => TensorStyle::Torch,
    }
}

/// The arrays of a result, in key order, following the `.npz` layout. `ty` is the function's
/// return type (it gives an empty list its dtype).
pub fn to_arrays(v: &Value, ty: &Type) -> Result<Vec<(String, Tensor)>, String> {
    let mut out = Vec::new();
    match (v, ty) {
        (Value::None, _) => {}
        (Value::Tuple(items), _) => {
            for (i, x) in items.iter().enumerate() {
                encode(x, elem_type(ty, i).as_ref(), format!("arr_{i}"), &mut out)?;
            }
        }
        _ => encode(v, Some(ty), "arr_0".to_string(), &mut out)?,
    }
    Ok(out)
}

fn elem_type(ty: &Type, i: usize) -> Option<Type> {
    match ty {
        Type::Tuple(ts) => ts.get(i).cloned(),
        Type::List(t) => Some((**t).clone()),
        Type::Optional(t) => elem_type(t, i),
        _ => None,
    }
}

fn scalar_list(items: &[Value], ty: Option<&Type>) -> Option<Result<Tensor, String>> {
    let dtype_of = |v: &Value| match v {
        Value::Int(_) => Some(DType::Int64),
        Value::Float(_) => Some(DType::Float64),
        Value::Bool(_) => Some(DType::Bool),
        _ => None,
    };
    let declared = match ty {
        Some(Type::List(e)) => match **e {
            Type::Int => Some(DType::Int64),
            Type::Float => Some(DType::Float64),
            Type::Bool => Some(DType::Bool),
            _ => None,
        },
        _ => None,
    };
    let dtype = match items.first() {
        Some(first) => dtype_of(first)?,
        None => declared?,
    };
    if items.iter().any(|x| dtype_of(x) != Some(dtype)) {
        return Some(Err(
            "a list mixing ints, floats and bools cannot be written as one array".into(),
        ));
    }
    let n = items.len();
    let t = match dtype {
        DType::Int64 => Tensor::from_vec(items.iter().filter_map(Value::as_int).collect(), &[n]),
        DType::Float64 => {
            Tensor::from_vec(items.iter().filter_map(Value::as_float).collect(), &[n])
        }
        _ => Tensor::from_vec(items.iter().filter_map(Value::as_bool).collect(), &[n]),
    };
    Some(t.map_err(|e| e.to_string()))
}

fn encode(
    v: &Value,
    ty: Option<&Type>,
    key: String,
    out: &mut Vec<(String, Tensor)>,
) -> Result<(), String> {
    match v {
        Value::Tensor(t) => out.push((key, t.clone())),
        Value::Int(i) => out.push((
            key,
            Tensor::from_vec(vec![*i], &[]).map_err(|e| e.to_string())?,
        )),
        Value::Float(x) => out.push((
            key,
            Tensor::from_vec(vec![*x], &[]).map_err(|e| e.to_string())?,
        )),
        Value::Bool(b) => out.push((
            key,
            Tensor::from_vec(vec![*b], &[]).map_err(|e| e.to_string())?,
        )),
        Value::List(l) => {
            let items = l.snapshot();
            if let Some(t) = scalar_list(&items, ty) {
                out.push((key, t?));
            } else if items.is_empty() {
                return Err(format!(
                    "cannot write an empty list of type {} as arrays",
                    ty.map(|t| t.to_string())
                        .unwrap_or_else(|| "unknown".into())
                ));
            } else {
                for (j, x) in items.iter().enumerate() {
                    let et = ty.and_then(|t| elem_type(t, j));
                    encode(x, et.as_ref(), format!("{key}_{j}"), out)?;
                }
            }
        }
        Value::Tuple(items) => {
            for (j, x) in items.iter().enumerate() {
                let et = ty.and_then(|t| elem_type(t, j));
                encode(x, et.as_ref(), format!("{key}_{j}"), out)?;
            }
        }
        Value::None => return Err("None inside a container cannot be written as an array".into()),
        other => {
            return Err(format!(
                "a {} cannot be written as an array",
                other.type_name()
            ));
        }
    }
    Ok(())
}

/// Writes a result to `path` (`.npy` or `.npz` by extension).
pub fn write(path: &Path, v: &Value, ty: &Type) -> Result<(), String> {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    match ext {
        "npz" => {
            let arrays = to_arrays(v, ty)?;
            let refs: Vec<(&str, &Tensor)> = arrays.iter().map(|(k, t)| (k.as_str(), t)).collect();
            pyjit_runtime::npy::write_npz(path, &refs).map_err(|e| e.to_string())
        }
        "npy" => {
            let arrays = match v {
                Value::Tuple(_) | Value::None => {
                    return Err(format!(
                        "a {} result cannot be written as one .npy; use -o FILE.npz",
                        if v.is_none() { "None" } else { "tuple" }
                    ));
                }
                _ => to_arrays(v, ty)?,
            };
            match arrays.as_slice() {
                [(_, t)] => pyjit_runtime::npy::write_npy(path, t).map_err(|e| e.to_string()),
                _ => Err("this result is several arrays; use -o FILE.npz".to_string()),
            }
        }
        _ => Err(format!(
            "-o {}: the output file must end in .npy or .npz",
            path.display()
        )),
    }
}
