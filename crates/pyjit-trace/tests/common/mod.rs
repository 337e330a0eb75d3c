//! Shared by the corpus tests: reading `tests/programs/` cases (format in tests/programs/README.md)
//! and comparing results with the expected outputs PyTorch produced.

#![allow(dead_code)]

use pyjit_interp::Value;
use pyjit_runtime::{DType, Tensor};
use std::path::{Path, PathBuf};

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

pub struct Case {
    pub program: String,
    pub index: usize,
    pub dir: PathBuf,
    pub func: String,
    pub args: Vec<Value>,
}

pub enum Expected {
    Ok(Vec<(String, Tensor)>),
    /// `Class` and the message.
    Error(String, String),
}

fn split_top(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0;
    let mut cur = String::new();
    for c in s.chars() {
        match c {
            '[' | '(' => {
                depth += 1;
                cur.push(c)
            }
            ']' | ')' => {
                depth -= 1;
                cur.push(c)
            }
            ',' if depth == 0 => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

pub fn parse_arg(field: &str, dir: &Path) -> Value {
    if let Some(inner) = field.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
        return Value::list(split_top(inner).iter().map(|f| parse_arg(f, dir)).collect());
    }
    if let Some(inner) = field.strip_prefix('(').and_then(|r| r.strip_suffix(')')) {
        return Value::tuple(split_top(inner).iter().map(|f| parse_arg(f, dir)).collect());
    }
    if field.ends_with(".npy") {
        return Value::Tensor(pyjit_runtime::npy::read_npy(dir.join(field)).expect("npy"));
    }
    match field {
        "true" => return Value::Bool(true),
        "false" => return Value::Bool(false),
        "none" => return Value::None,
        "inf" => return Value::Float(f64::INFINITY),
        "-inf" => return Value::Float(f64::NEG_INFINITY),
        "nan" => return Value::Float(f64::NAN),
        _ => {}
    }
    if field.contains(['.', 'e']) {
        Value::Float(field.parse().expect("float arg"))
    } else {
        Value::Int(field.parse().expect("int arg"))
    }
}

/// Every case of every program, in name order.
pub fn cases() -> Vec<Case> {
    let dir = repo_root().join("tests/programs");
    let mut progs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/programs")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
        .collect();
    progs.sort();
    let mut out = Vec::new();
    for p in progs {
        let name = p.file_stem().expect("stem").to_string_lossy().to_string();
        let cdir = dir.join(format!("{name}.cases"));
        let mut idx: Vec<usize> = match std::fs::read_dir(&cdir) {
            Ok(rd) => rd
                .filter_map(|e| e.ok()?.file_name().to_string_lossy().parse().ok())
                .collect(),
            Err(_) => continue,
        };
        idx.sort();
        for i in idx {
            let d = cdir.join(i.to_string());
            let line = std::fs::read_to_string(d.join("args.txt")).expect("args.txt");
            let fields: Vec<&str> = line.split_whitespace().collect();
            out.push(Case {
                program: name.clone(),
                index: i,
                func: fields[0].to_string(),
                args: fields[1..].iter().map(|f| parse_arg(f, &d)).collect(),
                dir: d,
            });
        }
    }
    out
}

impl Case {
    pub fn source(&self) -> pyjit_syntax::SourceFile {
        let path = repo_root().join(format!("tests/programs/{}.py", self.program));
        pyjit_syntax::SourceFile::new(
            format!("{}.py", self.program),
            std::fs::read_to_string(path).expect("program"),
        )
    }

    pub fn expected(&self) -> Expected {
        if let Ok(e) = std::fs::read_to_string(self.dir.join("error.txt")) {
            let e = e.trim_end();
            let (k, m) = e.split_once(": ").unwrap_or((e, ""));
            return Expected::Error(k.to_string(), m.to_string());
        }
        Expected::Ok(pyjit_runtime::npy::read_npz(self.dir.join("expected.npz")).expect("npz"))
    }

    pub fn stdout(&self) -> String {
        std::fs::read_to_string(self.dir.join("stdout.txt")).unwrap_or_default()
    }

    pub fn id(&self) -> String {
        format!("{}/{}", self.program, self.index)
    }
}

/// The result in the expected.npz layout.
pub fn flatten(v: &Value) -> Vec<(String, Tensor)> {
    let mut out = Vec::new();
    match v {
        Value::Tuple(items) => {
            for (i, it) in items.iter().enumerate() {
                flat(&format!("arr_{i}"), it, &mut out);
            }
        }
        other => flat("arr_0", other, &mut out),
    }
    out
}

fn scalar_list(items: &[Value]) -> Option<Tensor> {
    if items.iter().all(|v| matches!(v, Value::Int(_))) {
        return Some(Tensor::from_slice(
            &items
                .iter()
                .map(|v| v.as_int().unwrap_or(0))
                .collect::<Vec<i64>>(),
        ));
    }
    if items.iter().all(|v| matches!(v, Value::Float(_))) {
        return Some(Tensor::from_slice(
            &items
                .iter()
                .map(|v| v.as_float().unwrap_or(0.0))
                .collect::<Vec<f64>>(),
        ));
    }
    if items.iter().all(|v| matches!(v, Value::Bool(_))) {
        return Some(Tensor::from_slice(
            &items
                .iter()
                .map(|v| v.as_bool().unwrap_or(false))
                .collect::<Vec<bool>>(),
        ));
    }
    None
}

fn flat(key: &str, v: &Value, out: &mut Vec<(String, Tensor)>) {
    match v {
        Value::None => {}
        Value::Tensor(t) => out.push((key.into(), t.clone())),
        Value::Int(i) => out.push((key.into(), Tensor::from_vec(vec![*i], &[]).expect("0-d"))),
        Value::Float(x) => out.push((key.into(), Tensor::from_vec(vec![*x], &[]).expect("0-d"))),
        Value::Bool(b) => out.push((key.into(), Tensor::from_vec(vec![*b], &[]).expect("0-d"))),
        Value::List(l) => {
            let items = l.snapshot();
            match scalar_list(&items) {
                Some(t) => out.push((key.into(), t)),
                None => {
                    for (j, it) in items.iter().enumerate() {
                        flat(&format!("{key}_{j}"), it, out);
                    }
                }
            }
        }
        Value::Tuple(items) => {
            for (j, it) in items.iter().enumerate() {
                flat(&format!("{key}_{j}"), it, out);
            }
        }
        other => out.push((
            key.into(),
            Tensor::from_slice(&[pyjit_interp::format::py_str(other).len() as i64]),
        )),
    }
}

/// `None` when `got` matches the expected arrays (float32: rtol 1e-4/atol 1e-5; float64: rtol
/// 1e-9/atol 1e-12; ints and bools exactly; NaN equals NaN), else what differs.
pub fn compare(expected: &[(String, Tensor)], got: &[(String, Tensor)]) -> Option<String> {
    let mut e: Vec<_> = expected.iter().collect();
    let mut g: Vec<_> = got.iter().collect();
    e.sort_by(|a, b| a.0.cmp(&b.0));
    g.sort_by(|a, b| a.0.cmp(&b.0));
    let ek: Vec<&String> = e.iter().map(|x| &x.0).collect();
    let gk: Vec<&String> = g.iter().map(|x| &x.0).collect();
    if ek != gk {
        return Some(format!("keys {ek:?} vs {gk:?}"));
    }
    for ((k, a), (_, b)) in e.iter().zip(&g) {
        if a.shape() != b.shape() {
            return Some(format!("{k}: shape {:?} vs {:?}", a.shape(), b.shape()));
        }
        if a.numel() == 0 {
            continue;
        }
        if a.dtype() != b.dtype() {
            return Some(format!("{k}: dtype {:?} vs {:?}", a.dtype(), b.dtype()));
        }
        let (rtol, atol) = match a.dtype() {
            DType::Float32 => (1e-4, 1e-5),
            DType::Float64 => (1e-9, 1e-12),
            _ => (0.0, 0.0),
        };
        let (x, y) = (a.to_vec::<f64>(), b.to_vec::<f64>());
        for (i, (p, q)) in x.iter().zip(&y).enumerate() {
            let ok = (p.is_nan() && q.is_nan()) || p == q || (p - q).abs() <= atol + rtol * p.abs();
            if !ok {
                return Some(format!("{k}[{i}]: expected {p}, got {q}"));
            }
        }
    }
    None
}

/// Checks one outcome against a case; `None` when it agrees.
pub fn check(
    case: &Case,
    got: Result<Value, pyjit_trace::TraceError>,
    printed: &str,
) -> Option<String> {
    let want_out = case.stdout();
    let r = match (case.expected(), got) {
        (Expected::Ok(e), Ok(v)) => compare(&e, &flatten(&v)),
        (Expected::Ok(_), Err(err)) => Some(format!("raised {err}")),
        (Expected::Error(k, _), Ok(v)) => Some(format!(
            "expected {k}, returned {}",
            pyjit_interp::format::py_str(&v)
        )),
        (Expected::Error(k, m), Err(err)) => {
            if err.kind != k {
                Some(format!("expected {k}: {m}, raised {err}"))
            } else if err.raised_by_program && err.message != m {
                Some(format!("message {:?} vs {:?}", err.message, m))
            } else {
                None
            }
        }
    };
    if r.is_some() {
        return r;
    }
    if printed != want_out {
        return Some(format!("stdout {printed:?} vs {want_out:?}"));
    }
    None
}
