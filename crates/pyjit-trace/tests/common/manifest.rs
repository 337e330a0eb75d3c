//! How `tests/programs/manifest.json` spells a case's `tol` (see tests/programs/README.md), in one
//! place for every corpus test: this crate's `common` and pyjit's `tests/common` (which includes
//! this file by path) read the manifest through it.

use serde_json::Value;

/// Every case of the manifest `json` that has a `tol` entry: (program, case number, the entry).
pub fn case_tols(json: &Value) -> impl Iterator<Item = (&String, usize, &Value)> {
    let programs = json.get("programs").and_then(|p| p.as_object());
    programs.into_iter().flatten().flat_map(|(name, p)| {
        let cases = p.get("cases").and_then(|c| c.as_array());
        cases.into_iter().flatten().filter_map(move |c| {
            let k = c.get("case").and_then(|k| k.as_u64())?;
            Some((name, k as usize, c.get("tol")?))
        })
    })
}

/// A `tol` entry as `(rtol, atol)`: `{"rtol": r, "atol": a}`, `[r, a]`, or one number for both;
/// `None` when it is none of these.
pub fn tol_pair(tol: &Value) -> Option<(f64, f64)> {
    match tol {
        Value::Number(n) => n.as_f64().map(|t| (t, t)),
        Value::Array(a) if a.len() == 2 => a[0].as_f64().zip(a[1].as_f64()),
        Value::Object(o) => o
            .get("rtol")
            .and_then(|v| v.as_f64())
            .zip(o.get("atol").and_then(|v| v.as_f64())),
        _ => None,
    }
}
