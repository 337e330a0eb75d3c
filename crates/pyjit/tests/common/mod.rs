//! What the corpus tests (`programs.rs`, `trace_native_programs.rs`) share about
//! `tests/programs/` (format in `tests/programs/README.md`): where it is, its programs and their
//! cases, a case's `args.txt`, the known-failure lists, and the comparison of a result array with
//! the expected one — with the default tolerances, overridden by a case's `tol` in the manifest —
//! so that every way of running the corpus judges a result the same.

use pyjit_runtime::{DType, Tensor};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[path = "../../../pyjit-trace/tests/common/manifest.rs"]
mod manifest;

/// `(rtol, atol)`: floats agree when `|a - b| <= atol + rtol * |b|`.
pub type Tol = (f64, f64);

/// Per-case tolerance overrides: (program, case number) → tolerance.
pub type Tolerances = BTreeMap<(String, usize), Tol>;

pub fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/programs")
}

/// The programs of the corpus (`NAME.py`), sorted by name.
pub fn program_names() -> Vec<String> {
    let dir = corpus_dir();
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            e.file_name()
                .to_str()?
                .strip_suffix(".py")
                .map(String::from)
        })
        .collect();
    names.sort();
    names
}

/// The case directories of program `name` (`NAME.cases/K/`) with their numbers, in number order.
pub fn case_dirs(name: &str) -> Vec<(usize, PathBuf)> {
    let mut dirs: Vec<(usize, PathBuf)> =
        std::fs::read_dir(corpus_dir().join(format!("{name}.cases")))
            .map(|rd| {
                rd.filter_map(|e| e.ok())
                    .filter_map(|e| Some((e.file_name().to_str()?.parse().ok()?, e.path())))
                    .collect()
            })
            .unwrap_or_default();
    dirs.sort();
    dirs
}

/// A case's `args.txt`: the function name and the ARG words after it.
pub fn read_args(case: &Path) -> Result<(String, Vec<String>), String> {
    let line = std::fs::read_to_string(case.join("args.txt"))
        .map_err(|e| format!("cannot read args.txt: {e}"))?;
    let words = pyjit::args::split_words(line.trim())?;
    let Some((func, args)) = words.split_first() else {
        return Err("args.txt is empty".into());
    };
    Ok((func.clone(), args.to_vec()))
}

/// A known-failure list (`tests/FILE`): `name: reason` lines; `#` starts a comment. A missing
/// file is an empty list.
pub fn known_failures(file: &str) -> BTreeMap<String, String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(file);
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter(|l| !l.is_empty())
        .map(|l| match l.split_once(':') {
            Some((n, r)) => (n.trim().to_string(), r.trim().to_string()),
            None => (l.to_string(), String::new()),
        })
        .collect()
}

/// The `tol` entries of the manifest's cases: `{"rtol": r, "atol": a}`, `[r, a]`, or one number
/// for both.
pub fn tolerances() -> Tolerances {
    let mut out = BTreeMap::new();
    let Ok(text) = std::fs::read_to_string(corpus_dir().join("manifest.json")) else {
        return out;
    };
    let Ok(json) = serde_json::from_str::<serde_json::Value>(&text) else {
        return out;
    };
    for (name, k, tol) in manifest::case_tols(&json) {
        if let Some(pair) = manifest::tol_pair(tol) {
            out.insert((name.clone(), k), pair);
        }
    }
    out
}

/// The corpus tolerance for a dtype when the case gives none: reduction order and
/// transcendental implementations differ between PyTorch's kernels and ours.
pub fn default_tol(dtype: DType) -> Tol {
    match dtype {
        DType::Float32 => (1e-4, 1e-5),
        _ => (1e-9, 1e-12),
    }
}

/// NaN equals NaN, infinities equal by sign, finite values within the tolerance.
pub fn close(a: f64, b: f64, (rtol, atol): Tol) -> bool {
    if a.is_nan() || b.is_nan() {
        return a.is_nan() && b.is_nan();
    }
    if a.is_infinite() || b.is_infinite() {
        return a == b;
    }
    (a - b).abs() <= atol + rtol * b.abs()
}

/// Result array `key` against the expected one: dtype and shape exactly, integers and bools
/// exactly, floats with [`close`] under `tol` (the case's override) or [`default_tol`].
pub fn compare_arrays(
    key: &str,
    got: &Tensor,
    want: &Tensor,
    tol: Option<Tol>,
) -> Result<(), String> {
    if got.dtype() != want.dtype() {
        return Err(format!(
            "{key}: dtype {} != expected {}",
            got.dtype().name(),
            want.dtype().name()
        ));
    }
    if got.shape() != want.shape() {
        return Err(format!(
            "{key}: shape {:?} != expected {:?}",
            got.shape(),
            want.shape()
        ));
    }
    if want.dtype().is_float() {
        let tol = tol.unwrap_or_else(|| default_tol(want.dtype()));
        let (g, w) = (got.to_vec::<f64>(), want.to_vec::<f64>());
        let bad: Vec<usize> = (0..w.len()).filter(|&i| !close(g[i], w[i], tol)).collect();
        if let Some(&i) = bad.first() {
            return Err(format!(
                "{key}: {} of {} elements differ beyond rtol={}, atol={}; first at flat index {i}: {} vs expected {}",
                bad.len(),
                w.len(),
                tol.0,
                tol.1,
                g[i],
                w[i]
            ));
        }
    } else {
        let (g, w) = (got.to_vec::<i64>(), want.to_vec::<i64>());
        if let Some(i) = (0..w.len()).find(|&i| g[i] != w[i]) {
            return Err(format!(
                "{key}: element {i} is {} but expected {}",
                g[i], w[i]
            ));
        }
    }
    Ok(())
}
