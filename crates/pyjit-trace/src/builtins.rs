//! Python builtins, `math.*`, library functions (`torch.*`, `F.*`, `np.*`, dispatched through the
//! runtime's op-schema table by their recorded spellings), and methods of tensors, lists, dicts
//! and strings.

use crate::error::TraceError;
use crate::eval::{Evaluator, dict_get, dict_set, py_cmp, py_eq};
use crate::record::GuardReason;
use crate::value::PyVal;
use pyjit_runtime::DType;
use pyjit_runtime::numpy as np_conv;
use pyjit_runtime::schema;
use pyjit_syntax::Span;
use pyjit_syntax::ast::{BinOp, CmpOp};
use pyjit_value::{ExcKind, Value, scalar};
use std::cell::RefCell;
use std::rc::Rc;

type R<T> = Result<T, TraceError>;

fn type_err(msg: impl Into<String>, span: Span) -> TraceError {
    TraceError::type_error(msg, span)
}

fn arity(name: &str, args: &[PyVal], min: usize, max: usize, span: Span) -> R<()> {
    if args.len() < min || args.len() > max {
        return Err(type_err(
            format!(
                "{name}() takes from {min} to {max} arguments but {} were given",
                args.len()
            ),
            span,
        ));
    }
    Ok(())
}

fn kwarg(kw: &mut Vec<(String, PyVal)>, name: &str) -> Option<PyVal> {
    let i = kw.iter().position(|(k, _)| k == name)?;
    Some(kw.remove(i).1)
}

/// The target of Python's numeric conversions: `float(v)` or `int(v)`.
#[derive(Clone, Copy)]
enum Number {
    Float,
    Int,
}

/// `float(v)` or `int(v)` of a bool, an int, a one-element tensor (its value recorded and
/// guarded) or, for `float`, a float: a `PyVal::Float` or `PyVal::Int`. Any other value (for
/// `int`, floats too: their callers round them) is given back in `Err`.
fn convert_number(ev: &mut Evaluator, v: PyVal, to: Number, span: Span) -> R<Result<PyVal, PyVal>> {
    Ok(Ok(match (to, v) {
        (Number::Float, PyVal::Bool(b)) => PyVal::Float(b as u8 as f64),
        (Number::Float, PyVal::Int(i)) => PyVal::Float(i as f64),
        (Number::Float, x @ PyVal::Float(_)) | (Number::Int, x @ PyVal::Int(_)) => x,
        (Number::Int, PyVal::Bool(b)) => PyVal::Int(b as i64),
        (Number::Float, PyVal::Tensor(t)) => {
            ev.tensor_to_scalar(&t, "Float", GuardReason::Float, span)?
        }
        (Number::Int, PyVal::Tensor(t)) => {
            ev.tensor_to_scalar(&t, "Int", GuardReason::Int, span)?
        }
        (_, other) => return Ok(Err(other)),
    }))
}

/// A Python number as f64 for `math.*` (one-element tensors convert like `float(t)`; a symbolic
/// scalar is guarded to its example value).
fn to_f64(ev: &mut Evaluator, v: &PyVal, span: Span) -> R<f64> {
    let v = ev.concrete(v.clone());
    match convert_number(ev, v, Number::Float, span)? {
        Ok(PyVal::Float(x)) => Ok(x),
        Ok(other) | Err(other) => Err(type_err(
            format!("must be real number, not {}", other.type_name()),
            span,
        )),
    }
}

/// A Python int (bools and one-element integer tensors convert; a symbolic scalar is guarded to
/// its example value).
fn to_i64(ev: &mut Evaluator, v: &PyVal, span: Span) -> R<i64> {
    let v = ev.concrete(v.clone());
    match convert_number(ev, v, Number::Int, span)? {
        Ok(PyVal::Int(i)) => Ok(i),
        Ok(other) | Err(other) => Err(type_err(
            format!(
                "'{}' object cannot be interpreted as an integer",
                other.type_name()
            ),
            span,
        )),
    }
}

fn float_to_int(x: f64, span: Span) -> R<i64> {
    scalar::float_to_int(x).map_err(|e| TraceError::from_py(e, span))
}

pub(crate) fn call_builtin(
    ev: &mut Evaluator,
    name: &str,
    args: Vec<PyVal>,
    mut kw: Vec<(String, PyVal)>,
    span: Span,
) -> R<PyVal> {
    if let Some(m) = name.strip_prefix("math.") {
        return math(ev, m, &args, span);
    }
    if let Some(op) = name.strip_prefix("torch.nn.functional.") {
        return library_op(ev, op, Lib::Functional, args, kw, span);
    }
    if let Some(op) = name.strip_prefix("torch.") {
        match op {
            "jit.is_scripting" => return Ok(PyVal::Bool(false)),
            "device" => {
                arity("torch.device", &args, 1, 1, span)?;
                crate::eval::check_device(&args[0], span)?;
                return Ok(PyVal::Device);
            }
            "no_grad" | "enable_grad" | "inference_mode" => {
                arity(name, &args, 0, 0, span)?;
                return Ok(PyVal::None);
            }
            "jit.is_tracing" => return Ok(PyVal::Bool(ev.rec.is_some())),
            "is_tensor" => return Ok(PyVal::Bool(matches!(args.first(), Some(PyVal::Tensor(_))))),
            "as_tensor" => return library_op(ev, "tensor", Lib::Torch, args, kw, span),
            _ => {}
        }
        return library_op(ev, op, Lib::Torch, args, kw, span);
    }
    if let Some(op) = name.strip_prefix("numpy.") {
        return numpy_op(ev, op, args, kw, span);
    }
    match name {
        "print" => {
            let sep = kwarg(&mut kw, "sep")
                .map(|s| s.to_str())
                .unwrap_or_else(|| " ".into());
            let end = kwarg(&mut kw, "end")
                .map(|s| s.to_str())
                .unwrap_or_else(|| "\n".into());
            let text: Vec<String> = args.iter().map(|a| ev.str_of(a)).collect();
            let line = format!("{}{}", text.join(&sep), end);
            ev.out
                .write_all(line.as_bytes())
                .map_err(|e| TraceError::new(ExcKind::OSError, e.to_string(), span))?;
            if ev.rec.is_some() {
                ev.record_print(&args, &sep, span)?;
            }
            Ok(PyVal::None)
        }
        "len" => {
            arity("len", &args, 1, 1, span)?;
            Ok(PyVal::Int(match &args[0] {
                PyVal::List(l) => l.borrow().len() as i64,
                PyVal::Tuple(t) => t.len() as i64,
                PyVal::Str(s) => s.chars().count() as i64,
                PyVal::Dict(d) => d.borrow().len() as i64,
                PyVal::Range(a, b, c) => crate::value::range_len(*a, *b, *c) as i64,
                PyVal::Tensor(t) => {
                    if t.t.dim() == 0 {
                        return Err(type_err("len() of a 0-d tensor", span));
                    }
                    ev.size_of(t, 0, GuardReason::Shape, span)?
                }
                other => {
                    return Err(type_err(
                        format!("object of type '{}' has no len()", other.type_name()),
                        span,
                    ));
                }
            }))
        }
        "range" => {
            arity("range", &args, 1, 3, span)?;
            let mut n = Vec::new();
            for a in &args {
                n.push(to_i64(ev, a, span)?);
            }
            let (start, stop, step) = match n.as_slice() {
                [s] => (0, *s, 1),
                [a, b] => (*a, *b, 1),
                [a, b, c] => (*a, *b, *c),
                _ => (0, 0, 1),
            };
            if step == 0 {
                return Err(TraceError::new(
                    ExcKind::ValueError,
                    "range() arg 3 must not be zero",
                    span,
                ));
            }
            Ok(PyVal::Range(start, stop, step))
        }
        "abs" => {
            arity("abs", &args, 1, 1, span)?;
            match &args[0] {
                PyVal::Tensor(_) => ev.call_op("abs", args, vec![], span),
                PyVal::Int(i) => Ok(PyVal::Int(i.wrapping_abs())),
                PyVal::Bool(b) => Ok(PyVal::Int(*b as i64)),
                PyVal::Float(x) => Ok(PyVal::Float(x.abs())),
                other => Err(type_err(
                    format!("bad operand type for abs(): '{}'", other.type_name()),
                    span,
                )),
            }
        }
        "min" | "max" => {
            let items = if args.len() == 1 {
                ev.iterate(&args[0], span)?
            } else {
                args
            };
            let key = kwarg(&mut kw, "key");
            let mut best: Option<(PyVal, PyVal)> = None;
            for it in items {
                let k = match &key {
                    Some(f) => ev.call_value(f, vec![it.clone()], vec![], span)?,
                    None => it.clone(),
                };
                best = Some(match best {
                    None => (k, it),
                    Some((bk, bv)) => {
                        let op = if name == "min" { CmpOp::Lt } else { CmpOp::Gt };
                        let c = ev.compare(op, &k, &bk, span)?;
                        if ev.truthy(&c, span)? {
                            (k, it)
                        } else {
                            (bk, bv)
                        }
                    }
                });
            }
            best.map(|(_, v)| v).ok_or_else(|| {
                TraceError::new(
                    ExcKind::ValueError,
                    format!("{name}() arg is an empty sequence"),
                    span,
                )
            })
        }
        "sum" => {
            arity("sum", &args, 1, 2, span)?;
            let mut acc = args
                .get(1)
                .cloned()
                .or_else(|| kwarg(&mut kw, "start"))
                .unwrap_or(PyVal::Int(0));
            for it in ev.iterate(&args[0], span)? {
                acc = ev.binop(BinOp::Add, acc, it, span)?;
            }
            Ok(acc)
        }
        "round" => {
            arity("round", &args, 1, 2, span)?;
            let nd = match args.get(1).cloned().or_else(|| kwarg(&mut kw, "ndigits")) {
                None | Some(PyVal::None) => None,
                Some(v) => Some(to_i64(ev, &v, span)?),
            };
            match (&args[0], nd) {
                (PyVal::Tensor(_), None) => {
                    ev.call_op("round", vec![args[0].clone()], vec![], span)
                }
                (PyVal::Tensor(_), Some(d)) => ev.call_op(
                    "round",
                    vec![args[0].clone()],
                    vec![("decimals".into(), PyVal::Int(d))],
                    span,
                ),
                (PyVal::Int(i), None) => Ok(PyVal::Int(*i)),
                (PyVal::Bool(b), None) => Ok(PyVal::Int(*b as i64)),
                (PyVal::Int(i), Some(d)) => Ok(PyVal::Int(scalar::round_int_digits(*i, d))),
                (PyVal::Bool(b), Some(d)) => Ok(PyVal::Int(scalar::round_int_digits(*b as i64, d))),
                (PyVal::Float(x), None) => Ok(PyVal::Int(
                    scalar::round_float(*x).map_err(|e| TraceError::from_py(e, span))?,
                )),
                (PyVal::Float(x), Some(d)) => Ok(PyVal::Float(
                    scalar::round_float_digits(*x, d).map_err(|e| TraceError::from_py(e, span))?,
                )),
                (other, _) => Err(type_err(
                    format!("type {} doesn't define __round__ method", other.type_name()),
                    span,
                )),
            }
        }
        "isinstance" => {
            arity("isinstance", &args, 2, 2, span)?;
            let types = match &args[1] {
                PyVal::Tuple(t) => t.to_vec(),
                t => vec![t.clone()],
            };
            Ok(PyVal::Bool(types.iter().any(|t| is_instance(&args[0], t))))
        }
        "enumerate" => {
            arity("enumerate", &args, 1, 2, span)?;
            let start = match args.get(1).cloned().or_else(|| kwarg(&mut kw, "start")) {
                Some(v) => to_i64(ev, &v, span)?,
                None => 0,
            };
            let items = ev.iterate(&args[0], span)?;
            Ok(PyVal::list(
                items
                    .into_iter()
                    .enumerate()
                    .map(|(i, v)| PyVal::tuple(vec![PyVal::Int(start + i as i64), v]))
                    .collect(),
            ))
        }
        "zip" => {
            let mut seqs = Vec::new();
            for a in &args {
                seqs.push(ev.iterate(a, span)?);
            }
            let n = seqs.iter().map(Vec::len).min().unwrap_or(0);
            Ok(PyVal::list(
                (0..n)
                    .map(|i| PyVal::tuple(seqs.iter().map(|s| s[i].clone()).collect()))
                    .collect(),
            ))
        }
        "sorted" | "reversed" => {
            arity(name, &args, 1, 1, span)?;
            let mut items = ev.iterate(&args[0], span)?;
            if name == "reversed" {
                items.reverse();
                return Ok(PyVal::list(items));
            }
            let key = kwarg(&mut kw, "key");
            let rev = match kwarg(&mut kw, "reverse") {
                Some(v) => ev.truthy(&v, span)?,
                None => false,
            };
            sort_items(ev, &mut items, key.as_ref(), rev, span)?;
            Ok(PyVal::list(items))
        }
        "any" | "all" => {
            arity(name, &args, 1, 1, span)?;
            if let PyVal::Tensor(_) = &args[0] {
                return ev.call_op(name, args, vec![], span);
            }
            let want = name == "any";
            for it in ev.iterate(&args[0], span)? {
                if ev.truthy(&it, span)? == want {
                    return Ok(PyVal::Bool(want));
                }
            }
            Ok(PyVal::Bool(!want))
        }
        "map" => {
            if args.len() < 2 {
                return Err(type_err("map() must have at least two arguments.", span));
            }
            let mut seqs = Vec::new();
            for a in &args[1..] {
                seqs.push(ev.iterate(a, span)?);
            }
            let n = seqs.iter().map(Vec::len).min().unwrap_or(0);
            let mut out = Vec::with_capacity(n);
            for i in 0..n {
                let call_args = seqs.iter().map(|s| s[i].clone()).collect();
                out.push(ev.call_value(&args[0], call_args, vec![], span)?);
            }
            Ok(PyVal::list(out))
        }
        "filter" => {
            arity("filter", &args, 2, 2, span)?;
            let mut out = Vec::new();
            for it in ev.iterate(&args[1], span)? {
                let keep = match &args[0] {
                    PyVal::None => it.clone(),
                    f => ev.call_value(f, vec![it.clone()], vec![], span)?,
                };
                if ev.truthy(&keep, span)? {
                    out.push(it);
                }
            }
            Ok(PyVal::list(out))
        }
        "divmod" => {
            arity("divmod", &args, 2, 2, span)?;
            let q = ev.binop(BinOp::FloorDiv, args[0].clone(), args[1].clone(), span)?;
            let r = ev.binop(BinOp::Mod, args[0].clone(), args[1].clone(), span)?;
            Ok(PyVal::tuple(vec![q, r]))
        }
        "pow" => {
            arity("pow", &args, 2, 2, span)?;
            ev.binop(BinOp::Pow, args[0].clone(), args[1].clone(), span)
        }
        "repr" => {
            arity("repr", &args, 1, 1, span)?;
            Ok(PyVal::str(args[0].repr()))
        }
        "hasattr" => Ok(PyVal::Bool(false)),
        _ => Err(TraceError::new(
            ExcKind::AttributeError,
            format!("'{name}' is not supported by the eager evaluator"),
            span,
        )),
    }
}

fn sort_items(
    ev: &mut Evaluator,
    items: &mut Vec<PyVal>,
    key: Option<&PyVal>,
    rev: bool,
    span: Span,
) -> R<()> {
    let mut keyed = Vec::with_capacity(items.len());
    for it in items.drain(..) {
        let k = match key {
            Some(f) => ev.call_value(f, vec![it.clone()], vec![], span)?,
            None => it.clone(),
        };
        keyed.push((k, it));
    }
    let mut err = None;
    // Stable sort, like Python's; reverse keeps equal elements in order as Python does.
    keyed.sort_by(|(a, _), (b, _)| {
        let o = match py_cmp(a, b) {
            Some(Some(o)) => o,
            Some(None) => std::cmp::Ordering::Equal,
            None => {
                err = Some(type_err(
                    format!(
                        "'<' not supported between instances of '{}' and '{}'",
                        a.type_name(),
                        b.type_name()
                    ),
                    span,
                ));
                std::cmp::Ordering::Equal
            }
        };
        if rev { o.reverse() } else { o }
    });
    if let Some(e) = err {
        return Err(e);
    }
    items.extend(keyed.into_iter().map(|(_, v)| v));
    Ok(())
}

fn is_instance(v: &PyVal, t: &PyVal) -> bool {
    if let (PyVal::Object(o), PyVal::Class(c)) = (v, t) {
        return Rc::ptr_eq(&o.class, c);
    }
    let PyVal::Type(t) = t else { return false };
    match *t {
        "int" => matches!(v, PyVal::Int(_) | PyVal::Bool(_)),
        "float" => matches!(v, PyVal::Float(_)),
        "bool" => matches!(v, PyVal::Bool(_)),
        "str" => matches!(v, PyVal::Str(_)),
        "list" => matches!(v, PyVal::List(_)),
        "tuple" => matches!(v, PyVal::Tuple(_)),
        "dict" => matches!(v, PyVal::Dict(_)),
        "Tensor" => matches!(v, PyVal::Tensor(_)),
        "object" => true,
        _ => false,
    }
}

/// `math.NAME(*args)`: the arguments become Python scalars (one-element tensors convert like
/// `float(t)`/`int(t)`, with a guard), then pyjit-value's `math` module computes the result.
fn math(ev: &mut Evaluator, m: &str, args: &[PyVal], span: Span) -> R<PyVal> {
    let Some(arity) = scalar::math_arity(m) else {
        return Err(TraceError::no_module_attribute("math", m, span));
    };
    if !arity.contains(&args.len()) {
        return Err(type_err(
            format!(
                "math.{m}() takes {} argument(s) ({} given)",
                arity.end(),
                args.len()
            ),
            span,
        ));
    }
    let int_args = matches!(m, "gcd" | "factorial");
    let mut vals = Vec::with_capacity(args.len());
    for a in args {
        vals.push(match a {
            PyVal::Bool(b) => Value::Bool(*b),
            PyVal::Int(i) => Value::Int(*i),
            _ if int_args => Value::Int(to_i64(ev, a, span)?),
            _ => Value::Float(to_f64(ev, a, span)?),
        });
    }
    match scalar::math_call(m, &vals) {
        Some(r) => scalar_result(r, span),
        None => Err(type_err(format!("math.{m}() got bad arguments"), span)),
    }
}

/// A scalar result of pyjit-value as a tracer value.
fn scalar_result(r: Result<Value, pyjit_value::PyErr>, span: Span) -> R<PyVal> {
    match r.map_err(|e| TraceError::from_py(e, span))? {
        Value::Bool(b) => Ok(PyVal::Bool(b)),
        Value::Int(i) => Ok(PyVal::Int(i)),
        Value::Float(x) => Ok(PyVal::Float(x)),
        other => Err(TraceError::new(
            pyjit_value::ExcKind::Internal,
            format!("a scalar function returned a {}", other.type_name()),
            span,
        )),
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Lib {
    Torch,
    Functional,
    Method,
}

/// Calls `torch.NAME` / `F.NAME` / `x.NAME` through the schema table, if the table records that
/// spelling for the name.
fn library_op(
    ev: &mut Evaluator,
    name: &str,
    lib: Lib,
    args: Vec<PyVal>,
    kw: Vec<(String, PyVal)>,
    span: Span,
) -> R<PyVal> {
    let spelled = schema::overloads(name).any(|(_, s)| match lib {
        Lib::Torch => s.spelling.torch,
        Lib::Functional => s.spelling.functional,
        Lib::Method => s.spelling.method,
    });
    if !spelled {
        return Err(match lib {
            Lib::Torch => TraceError::no_module_attribute("torch", name, span),
            Lib::Functional => TraceError::no_module_attribute("torch.nn.functional", name, span),
            Lib::Method => TraceError::no_attribute("Tensor", name, span),
        });
    }
    ev.call_op(name, args, kw, span)
}

/// Applies the shared NumPy conventions ([`np_conv`]) to the arguments of op `op`.
fn numpy_conventions(op: &str, args: &[PyVal], kw: &mut Vec<(String, PyVal)>) {
    for (k, _) in kw.iter_mut() {
        *k = np_conv::numpy_keyword(k).to_string();
    }
    let kinds: Vec<np_conv::ArgKind> = args
        .iter()
        .map(|a| match a {
            PyVal::Int(_) => np_conv::ArgKind::Int,
            PyVal::Float(_) => np_conv::ArgKind::Float,
            PyVal::Bool(_) => np_conv::ArgKind::Bool,
            PyVal::List(_) | PyVal::Tuple(_) if has_float(a) => np_conv::ArgKind::FloatData,
            _ => np_conv::ArgKind::Other,
        })
        .collect();
    let keys: Vec<&str> = kw.iter().map(|(k, _)| k.as_str()).collect();
    let add = np_conv::numpy_call(op, &kinds, &keys);
    push_added(kw, add);
}

/// Appends the keyword arguments a shared convention ([`np_conv`]) adds.
pub(crate) fn push_added(kw: &mut Vec<(String, PyVal)>, add: Vec<(&str, np_conv::Added)>) {
    for (k, a) in add {
        let v = match a {
            np_conv::Added::DType(d) => PyVal::DType(d),
            np_conv::Added::Int(i) => PyVal::Int(i),
        };
        kw.push((k.to_string(), v));
    }
}

fn has_float(v: &PyVal) -> bool {
    match v {
        PyVal::Float(_) => true,
        PyVal::List(_) | PyVal::Tuple(_) => v.sequence().unwrap_or_default().iter().any(has_float),
        _ => false,
    }
}

/// `np.NAME(...)`: the op the table maps the NumPy name to, with NumPy's float64 creation default.
fn numpy_op(
    ev: &mut Evaluator,
    name: &str,
    args: Vec<PyVal>,
    mut kw: Vec<(String, PyVal)>,
    span: Span,
) -> R<PyVal> {
    if let Some(d) = numpy_dtype(name) {
        return convert_scalar(ev, d, &args, span);
    }
    let Some(op) = schema::numpy_function(name) else {
        return Err(TraceError::no_module_attribute("numpy", name, span));
    };
    numpy_conventions(op, &args, &mut kw);
    if op == "tensor"
        && let Some(PyVal::Tensor(_)) = args.first()
    {
        return match kw.iter().position(|(k, _)| k == "dtype") {
            Some(i) => {
                let d = kw.remove(i).1;
                ev.call_op("to", vec![args[0].clone(), d], vec![], span)
            }
            None => ev.call_op("clone", args, vec![], span),
        };
    }
    ev.call_op(op, args, kw, span)
}

fn numpy_dtype(name: &str) -> Option<DType> {
    Some(match name {
        "float32" => DType::Float32,
        "float64" | "double" => DType::Float64,
        "int64" => DType::Int64,
        "int32" => DType::Int32,
        "bool_" => DType::Bool,
        _ => return None,
    })
}

/// `np.float32(x)` and friends: a NumPy scalar (modelled as the Python scalar it converts to).
pub(crate) fn convert_scalar(ev: &mut Evaluator, d: DType, args: &[PyVal], span: Span) -> R<PyVal> {
    let v = args.first().cloned().unwrap_or(PyVal::Int(0));
    if let PyVal::Tensor(_) = v {
        return ev.call_op("to", vec![v, PyVal::DType(d)], vec![], span);
    }
    Ok(match d {
        DType::Float32 => PyVal::Float(to_f64(ev, &v, span)? as f32 as f64),
        DType::Float64 => PyVal::Float(to_f64(ev, &v, span)?),
        DType::Bool => PyVal::Bool(ev.truthy(&v, span)?),
        _ => PyVal::Int(match v {
            PyVal::Float(x) => float_to_int(x, span)?,
            other => to_i64(ev, &other, span)?,
        }),
    })
}

pub(crate) fn call_type(ev: &mut Evaluator, t: &str, args: Vec<PyVal>, span: Span) -> R<PyVal> {
    let a = args.first().cloned();
    Ok(match (t, a) {
        ("int", None) => PyVal::Int(0),
        ("float", None) => PyVal::Float(0.0),
        ("bool", None) => PyVal::Bool(false),
        ("str", None) => PyVal::str(""),
        ("list", None) => PyVal::list(vec![]),
        ("tuple", None) => PyVal::tuple(vec![]),
        ("dict", None) => PyVal::Dict(Rc::new(RefCell::new(vec![]))),
        ("int", Some(v)) => match convert_number(ev, v, Number::Int, span)? {
            Ok(i) => i,
            Err(PyVal::Float(x)) => PyVal::Int(float_to_int(x, span)?),
            Err(PyVal::Str(s)) => PyVal::Int(s.trim().parse().map_err(|_| {
                TraceError::new(
                    ExcKind::ValueError,
                    format!(
                        "invalid literal for int() with base 10: {}",
                        PyVal::Str(s.clone()).repr()
                    ),
                    span,
                )
            })?),
            Err(other) => {
                return Err(type_err(
                    format!(
                        "int() argument must be a string or a number, not '{}'",
                        other.type_name()
                    ),
                    span,
                ));
            }
        },
        ("float", Some(v)) => match convert_number(ev, v, Number::Float, span)? {
            Ok(x) => x,
            Err(PyVal::Str(s)) => {
                let t = s.trim().to_ascii_lowercase();
                PyVal::Float(match t.as_str() {
                    "inf" | "+inf" | "infinity" => f64::INFINITY,
                    "-inf" | "-infinity" => f64::NEG_INFINITY,
                    "nan" | "+nan" | "-nan" => f64::NAN,
                    _ => t.parse().map_err(|_| {
                        TraceError::new(
                            ExcKind::ValueError,
                            format!(
                                "could not convert string to float: {}",
                                PyVal::Str(s.clone()).repr()
                            ),
                            span,
                        )
                    })?,
                })
            }
            Err(other) => {
                return Err(type_err(
                    format!(
                        "float() argument must be a string or a number, not '{}'",
                        other.type_name()
                    ),
                    span,
                ));
            }
        },
        ("bool", Some(v)) => PyVal::Bool(ev.truthy(&v, span)?),
        ("str", Some(v)) => PyVal::str(v.to_str()),
        ("list", Some(v)) => PyVal::list(ev.iterate(&v, span)?),
        ("tuple", Some(v)) => PyVal::tuple(ev.iterate(&v, span)?),
        ("dict", Some(v)) => {
            let d = Rc::new(RefCell::new(Vec::new()));
            for pair in ev.iterate(&v, span)? {
                let kv = ev.iterate(&pair, span)?;
                if kv.len() != 2 {
                    return Err(TraceError::new(
                        ExcKind::ValueError,
                        "dictionary update sequence element has wrong length",
                        span,
                    ));
                }
                dict_set(&d, kv[0].clone(), kv[1].clone());
            }
            PyVal::Dict(d)
        }
        (other, _) => return Err(type_err(format!("cannot call type '{other}'"), span)),
    })
}

pub(crate) fn call_method(
    ev: &mut Evaluator,
    recv: &PyVal,
    name: &str,
    args: Vec<PyVal>,
    mut kw: Vec<(String, PyVal)>,
    span: Span,
) -> R<PyVal> {
    match recv {
        PyVal::Tensor(t) => {
            match name {
                "size" if !args.is_empty() || !kw.is_empty() => {
                    let d = match args.first().cloned().or_else(|| kwarg(&mut kw, "dim")) {
                        Some(v) => to_i64(ev, &v, span)?,
                        None => 0,
                    };
                    return Ok(PyVal::Int(ev.size_of(t, d, GuardReason::Shape, span)?));
                }
                "type" | "astype" if args.len() == 1 => {
                    return ev.call_op("to", vec![recv.clone(), args[0].clone()], kw, span);
                }
                "tolist" if args.is_empty() && kw.is_empty() => {
                    if ev.rec.is_some() && t.ir.is_some() {
                        return traced_tolist(ev, recv, t, span);
                    }
                    return Ok(tolist(&t.t));
                }
                _ => {}
            }
            let mut all = vec![recv.clone()];
            all.extend(args);
            if name == "where" && all.len() >= 2 {
                // `x.where(cond, other)`: `x` is the value where `cond` holds.
                all.swap(0, 1);
            }
            if ev.numpy_mode {
                let op = schema::numpy_function(name).unwrap_or(name);
                numpy_conventions(op, &all, &mut kw);
            }
            let numpy_kw = kw.iter().any(|(k, _)| k == "axis" || k == "keepdims");
            if !numpy_kw && schema::overloads(name).any(|(_, s)| s.spelling.method) {
                return library_op(ev, name, Lib::Method, all, kw, span);
            }
            match schema::numpy_function(name) {
                Some(op) => ev.call_op(op, all, kw, span),
                None => library_op(ev, name, Lib::Method, all, kw, span),
            }
        }
        PyVal::List(l) => list_method(ev, l, name, args, span),
        PyVal::Dict(d) => {
            let a0 = args.first().cloned().unwrap_or(PyVal::None);
            Ok(match name {
                "get" => {
                    dict_get(d, &a0).unwrap_or_else(|| args.get(1).cloned().unwrap_or(PyVal::None))
                }
                "keys" => PyVal::list(d.borrow().iter().map(|(k, _)| k.clone()).collect()),
                "values" => PyVal::list(d.borrow().iter().map(|(_, v)| v.clone()).collect()),
                "items" => PyVal::list(
                    d.borrow()
                        .iter()
                        .map(|(k, v)| PyVal::tuple(vec![k.clone(), v.clone()]))
                        .collect(),
                ),
                "pop" => {
                    let pos = d.borrow().iter().position(|(k, _)| py_eq(k, &a0));
                    match pos {
                        Some(i) => d.borrow_mut().remove(i).1,
                        None => match args.get(1) {
                            Some(v) => v.clone(),
                            None => {
                                return Err(TraceError::new(ExcKind::KeyError, a0.repr(), span));
                            }
                        },
                    }
                }
                "setdefault" => match dict_get(d, &a0) {
                    Some(v) => v,
                    None => {
                        let v = args.get(1).cloned().unwrap_or(PyVal::None);
                        dict_set(d, a0, v.clone());
                        v
                    }
                },
                "update" => {
                    if let PyVal::Dict(o) = &a0 {
                        let items = o.borrow().clone();
                        for (k, v) in items {
                            dict_set(d, k, v);
                        }
                    }
                    for (k, v) in kw {
                        dict_set(d, PyVal::str(k), v);
                    }
                    PyVal::None
                }
                "copy" => PyVal::Dict(Rc::new(RefCell::new(d.borrow().clone()))),
                "clear" => {
                    d.borrow_mut().clear();
                    PyVal::None
                }
                _ => {
                    return Err(TraceError::no_attribute("dict", name, span));
                }
            })
        }
        PyVal::Str(s) => str_method(ev, s, name, args, span),
        other => Err(TraceError::no_attribute(other.type_name(), name, span)),
    }
}

/// The most elements `Tensor.tolist()` reads while tracing: each one becomes a guard.
pub(crate) const MAX_TRACED_TOLIST: usize = 1024;

/// `t.tolist()` while tracing: every element is read as a Python number (an `Int`/`Float`/
/// `Bool` of `t.reshape(-1)[i]`, recorded) and guarded to equal its traced value, as PyTorch's
/// tracer treats the list as a constant (with its TracerWarning); a call whose tensor holds
/// other values fails a guard and re-traces, so the trace stays sound. Larger tensors are
/// refused: that many guards would make every call slower than eager evaluation.
fn traced_tolist(ev: &mut Evaluator, recv: &PyVal, t: &crate::TVal, span: Span) -> R<PyVal> {
    let n = t.t.numel();
    if n > MAX_TRACED_TOLIST {
        return Err(TraceError::unsupported(
            format!(
                "`tolist()` of a tensor with {n} elements cannot be traced: each element would be \
                 a guard (at most {MAX_TRACED_TOLIST}); script the function (`-> List[int]`), or run it eagerly"
            ),
            span,
        ));
    }
    let conv = match t.t.dtype() {
        DType::Bool => "Bool",
        DType::Int32 | DType::Int64 => "Int",
        _ => "Float",
    };
    let flat = ev.call_op(
        "reshape",
        vec![recv.clone(), PyVal::list(vec![PyVal::Int(-1)])],
        vec![],
        span,
    )?;
    let PyVal::Tensor(flat) = flat else {
        return Err(TraceError::unsupported(
            "`reshape` did not return a tensor",
            span,
        ));
    };
    let mut vals = Vec::with_capacity(n);
    for i in 0..n {
        let e = ev.index_tensor(
            &flat,
            vec![pyjit_runtime::TensorIndex::Int(i as i64)],
            vec![None],
            span,
        )?;
        let PyVal::Tensor(et) = &e else {
            return Err(TraceError::unsupported(
                "indexing did not return a tensor",
                span,
            ));
        };
        vals.push(ev.tensor_to_scalar(et, conv, GuardReason::List, span)?);
    }
    Ok(build_nested(&vals, t.t.shape()))
}

/// Nests row-major `vals` into lists of `shape` (a 0-d shape is the one value).
fn build_nested(vals: &[PyVal], shape: &[usize]) -> PyVal {
    match shape.split_first() {
        None => vals.first().cloned().unwrap_or(PyVal::None),
        Some((&n, rest)) => {
            let step: usize = rest.iter().product();
            PyVal::list(
                (0..n)
                    .map(|i| build_nested(&vals[i * step..(i + 1) * step], rest))
                    .collect(),
            )
        }
    }
}

fn tolist(t: &pyjit_runtime::Tensor) -> PyVal {
    let build = build_nested;
    let flat: Vec<PyVal> = match t.dtype() {
        DType::Bool => t.to_vec::<bool>().into_iter().map(PyVal::Bool).collect(),
        DType::Int32 | DType::Int64 => t.to_vec::<i64>().into_iter().map(PyVal::Int).collect(),
        _ => t.to_vec::<f64>().into_iter().map(PyVal::Float).collect(),
    };
    build(&flat, t.shape())
}

fn list_method(
    ev: &mut Evaluator,
    l: &Rc<RefCell<Vec<PyVal>>>,
    name: &str,
    args: Vec<PyVal>,
    span: Span,
) -> R<PyVal> {
    let a0 = args.first().cloned();
    let need = |a: Option<PyVal>| {
        a.ok_or_else(|| {
            type_err(
                format!("{name}() takes exactly one argument (0 given)"),
                span,
            )
        })
    };
    Ok(match name {
        "append" => {
            l.borrow_mut().push(need(a0)?);
            PyVal::None
        }
        "extend" => {
            let more = ev.iterate(&need(a0)?, span)?;
            l.borrow_mut().extend(more);
            PyVal::None
        }
        "insert" => {
            let i = to_i64(ev, &need(a0)?, span)?;
            let v = args.get(1).cloned().unwrap_or(PyVal::None);
            let n = l.borrow().len() as i64;
            let j = if i < 0 {
                i.saturating_add(n).max(0)
            } else {
                i.min(n)
            };
            l.borrow_mut().insert(j as usize, v);
            PyVal::None
        }
        "pop" => {
            let n = l.borrow().len() as i64;
            if n == 0 {
                return Err(TraceError::new(
                    ExcKind::IndexError,
                    "pop from empty list",
                    span,
                ));
            }
            let i = match a0 {
                Some(v) => to_i64(ev, &v, span)?,
                None => -1,
            };
            let Some(j) = pyjit_value::ops::norm_index(i, n as usize) else {
                return Err(TraceError::new(
                    ExcKind::IndexError,
                    "pop index out of range",
                    span,
                ));
            };
            l.borrow_mut().remove(j)
        }
        "index" | "count" | "remove" => {
            let x = need(a0)?;
            let items = l.borrow().clone();
            let mut hits = Vec::new();
            for (i, it) in items.iter().enumerate() {
                let e = ev.compare(CmpOp::Eq, it, &x, span)?;
                if ev.truthy(&e, span)? {
                    hits.push(i);
                }
            }
            match name {
                "count" => PyVal::Int(hits.len() as i64),
                "index" => match hits.first() {
                    Some(i) => PyVal::Int(*i as i64),
                    None => {
                        return Err(TraceError::new(
                            ExcKind::ValueError,
                            format!("{} is not in list", x.repr()),
                            span,
                        ));
                    }
                },
                _ => match hits.first() {
                    Some(i) => {
                        l.borrow_mut().remove(*i);
                        PyVal::None
                    }
                    None => {
                        return Err(TraceError::new(
                            ExcKind::ValueError,
                            "list.remove(x): x not in list",
                            span,
                        ));
                    }
                },
            }
        }
        "reverse" => {
            l.borrow_mut().reverse();
            PyVal::None
        }
        "sort" => {
            let mut items = l.borrow().clone();
            sort_items(ev, &mut items, None, false, span)?;
            *l.borrow_mut() = items;
            PyVal::None
        }
        "copy" => PyVal::list(l.borrow().clone()),
        "clear" => {
            l.borrow_mut().clear();
            PyVal::None
        }
        _ => {
            return Err(TraceError::no_attribute("list", name, span));
        }
    })
}

fn str_method(ev: &mut Evaluator, s: &str, name: &str, args: Vec<PyVal>, span: Span) -> R<PyVal> {
    let a0 = args.first().map(PyVal::to_str);
    Ok(match name {
        "join" => {
            let items = ev.iterate(args.first().unwrap_or(&PyVal::None), span)?;
            PyVal::str(items.iter().map(PyVal::to_str).collect::<Vec<_>>().join(s))
        }
        "upper" => PyVal::str(s.to_uppercase()),
        "lower" => PyVal::str(s.to_lowercase()),
        "strip" => PyVal::str(s.trim()),
        "startswith" => PyVal::Bool(s.starts_with(a0.unwrap_or_default().as_str())),
        "endswith" => PyVal::Bool(s.ends_with(a0.unwrap_or_default().as_str())),
        "replace" => PyVal::str(s.replace(
            a0.unwrap_or_default().as_str(),
            &args.get(1).map(PyVal::to_str).unwrap_or_default(),
        )),
        "split" => PyVal::list(match a0 {
            Some(sep) => s.split(sep.as_str()).map(PyVal::str).collect(),
            None => s.split_whitespace().map(PyVal::str).collect(),
        }),
        "format" => {
            let vals = args
                .iter()
                .map(|a| {
                    crate::value::to_interp(a).map_err(|t| {
                        TraceError::new(ExcKind::TypeError, format!("cannot format a {t}"), span)
                    })
                })
                .collect::<R<Vec<_>>>()?;
            PyVal::str(
                pyjit_value::format::py_str_format(s, &vals)
                    .map_err(|m| TraceError::new(ExcKind::ValueError, m, span))?,
            )
        }
        _ => {
            return Err(TraceError::no_attribute("str", name, span));
        }
    })
}
