//! Shared by the corpus tests: reading `tests/programs/` cases (format in tests/programs/README.md)
//! and comparing results with the expected outputs PyTorch produced.

#![allow(dead_code)]

use pyjit_interp::Value;
use pyjit_runtime::{DType, Tensor};
use pyjit_syntax::SourceFile;
use pyjit_syntax::ast::Module;
use pyjit_trace::{Trace, TraceError, TraceOptions, trace_function_to};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

mod manifest;

/// A 1-d float32 tensor argument.
pub fn t(v: &[f32]) -> Value {
    Value::Tensor(Tensor::from_slice(v))
}

/// `src` as the file `path`, and its module (which must parse).
pub fn parsed(path: impl Into<String>, src: impl Into<String>) -> (SourceFile, Module) {
    let file = SourceFile::new(path.into(), src.into());
    let m = pyjit_syntax::parse_module(&file).expect("parses");
    (file, m)
}

/// Traces `name` of `file` (parsed: `m`) on `args`, the eager run's prints dropped.
pub fn trace_of(
    file: &SourceFile,
    m: &Module,
    name: &str,
    args: Vec<Value>,
    opts: TraceOptions,
) -> Result<Trace, TraceError> {
    trace_function_to(file, m, name, args, opts, &mut Vec::new())
}

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

    /// The case's `tol` override from `tests/programs/manifest.json` (`{"rtol", "atol"}`, a
    /// `[rtol, atol]` pair or one number for both; see tests/programs/README.md), if any.
    pub fn tol(&self) -> Option<(f64, f64)> {
        manifest_tolerances()
            .get(&(self.program.clone(), self.index))
            .copied()
    }
}

type Tolerances = BTreeMap<(String, usize), (f64, f64)>;

/// Every case's manifest `tol`, read once.
fn manifest_tolerances() -> &'static Tolerances {
    static TOLS: OnceLock<Tolerances> = OnceLock::new();
    TOLS.get_or_init(|| {
        let text = std::fs::read_to_string(repo_root().join("tests/programs/manifest.json"))
            .expect("tests/programs/manifest.json");
        let json: serde_json::Value = serde_json::from_str(&text).expect("manifest.json parses");
        let mut out = Tolerances::new();
        for (name, k, tol) in manifest::case_tols(&json) {
            let pair = manifest::tol_pair(tol)
                .unwrap_or_else(|| panic!("{name}/{k}: malformed tol {tol}"));
            out.insert((name.clone(), k), pair);
        }
        out
    })
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
    /// The items as one tensor when `get` takes each of them.
    fn all<T: pyjit_runtime::Element>(
        items: &[Value],
        get: impl Fn(&Value) -> Option<T>,
    ) -> Option<Tensor> {
        let v: Option<Vec<T>> = items.iter().map(get).collect();
        v.map(|v| Tensor::from_slice(&v))
    }
    all(items, |v| match v {
        Value::Int(i) => Some(*i),
        _ => None,
    })
    .or_else(|| {
        all(items, |v| match v {
            Value::Float(x) => Some(*x),
            _ => None,
        })
    })
    .or_else(|| {
        all(items, |v| match v {
            Value::Bool(b) => Some(*b),
            _ => None,
        })
    })
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
    compare_with(expected, got, None)
}

/// [`compare`] with the floating-point `(rtol, atol)` overridden by a case's manifest `tol`.
pub fn compare_with(
    expected: &[(String, Tensor)],
    got: &[(String, Tensor)],
    tol: Option<(f64, f64)>,
) -> Option<String> {
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
        let (rtol, atol) = match (a.dtype(), tol) {
            (DType::Float32 | DType::Float64, Some(t)) => t,
            (DType::Float32, None) => (1e-4, 1e-5),
            (DType::Float64, None) => (1e-9, 1e-12),
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
        (Expected::Ok(e), Ok(v)) => compare_with(&e, &flatten(&v), case.tol()),
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
