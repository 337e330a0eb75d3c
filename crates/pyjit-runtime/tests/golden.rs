//! Replays the golden cases that real PyTorch produced (tests/oracle/runtime/gen.py) through
//! `schema::resolve` + `dispatch::call`.
//!
//! Comparison rules: dtype and shape must match exactly; integer and bool elements exactly;
//! float elements must both be NaN, or equal infinities, or satisfy
//! `|got - want| <= atol + rtol * |want|` with (rtol, atol) = (1e-5, 1e-6) for float32 and
//! (1e-10, 1e-12) for float64 — float32 kernels here accumulate in float64 and transcendental
//! functions come from a different libm than PyTorch's SLEEF, so the last bit or two may differ.
//! A case PyTorch rejects must fail here with an error of the same Python exception class and the
//! same message.

use std::collections::HashMap;
use std::path::PathBuf;

use pyjit_runtime::npy::read_npz;
use pyjit_runtime::schema::{ArgInfo, TensorInfo, TypeInfo, infer, resolve};
use pyjit_runtime::{DType, Element, RuntimeError, Tensor, TensorIndex, Value, call};
use serde_json::Value as J;

fn oracle_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/oracle/runtime")
}

fn load(name: &str) -> HashMap<String, Tensor> {
    read_npz(oracle_dir().join(name))
        .unwrap_or_else(|e| panic!("reading {name}: {e}"))
        .into_iter()
        .collect()
}

fn float_of(j: &J) -> f64 {
    match j {
        J::String(s) => match s.as_str() {
            "nan" => f64::NAN,
            "inf" => f64::INFINITY,
            "-inf" => f64::NEG_INFINITY,
            other => panic!("bad float {other}"),
        },
        other => other.as_f64().expect("float"),
    }
}

fn tensor_arg(j: &J, inputs: &HashMap<String, Tensor>) -> Tensor {
    let name = j["tensor"].as_str().expect("tensor name");
    let t = inputs
        .get(name)
        .unwrap_or_else(|| panic!("missing input {name}"))
        .clone();
    match j.get("view").and_then(J::as_str) {
        None => t,
        Some("T") => t.transpose(-2, -1).unwrap(),
        Some("step2") => t.slice(-1, None, None, 2).unwrap(),
        Some("expand") => {
            let mut s: Vec<i64> = t.shape().iter().map(|&d| d as i64).collect();
            s[0] = 2;
            t.expand(&s).unwrap()
        }
        Some(v) => panic!("unknown view {v}"),
    }
}

/// The items of a JSON array.
fn elements(v: &J) -> std::slice::Iter<'_, J> {
    v.as_array().unwrap().iter()
}

fn decode(j: &J, inputs: &HashMap<String, Tensor>) -> Value {
    let obj = j.as_object().expect("arg object");
    if obj.contains_key("tensor") {
        return Value::Tensor(tensor_arg(j, inputs));
    }
    if let Some(v) = obj.get("int") {
        return Value::Int(v.as_i64().expect("int"));
    }
    if let Some(v) = obj.get("float") {
        return Value::Float(float_of(v));
    }
    if let Some(v) = obj.get("bool") {
        return Value::Bool(v.as_bool().expect("bool"));
    }
    if obj.contains_key("none") {
        return Value::None;
    }
    if let Some(v) = obj.get("ints") {
        return Value::IntList(elements(v).map(|x| x.as_i64().unwrap()).collect());
    }
    if let Some(v) = obj.get("dtype") {
        return Value::DType(DType::from_name(v.as_str().unwrap()).unwrap());
    }
    if let Some(v) = obj.get("str") {
        return Value::Str(v.as_str().unwrap().to_string());
    }
    if let Some(v) = obj.get("tensors") {
        return Value::TensorList(elements(v).map(|x| tensor_arg(x, inputs)).collect());
    }
    if let Some(v) = obj.get("list") {
        return Value::List(elements(v).map(|x| decode(x, inputs)).collect());
    }
    if let Some(v) = obj.get("index") {
        let comps = v
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                let o = c.as_object().unwrap();
                if o.contains_key("tensor") {
                    TensorIndex::Tensor(tensor_arg(c, inputs))
                } else if let Some(i) = o.get("int") {
                    TensorIndex::Int(i.as_i64().unwrap())
                } else if o.contains_key("none") {
                    TensorIndex::None
                } else if o.contains_key("ellipsis") {
                    TensorIndex::Ellipsis
                } else {
                    let s = o["slice"].as_array().unwrap();
                    TensorIndex::Slice {
                        start: s[0].as_i64(),
                        stop: s[1].as_i64(),
                        step: s[2].as_i64().unwrap(),
                    }
                }
            })
            .collect();
        return Value::Indices(comps);
    }
    panic!("cannot decode {j}")
}

fn close<T: Element>(got: &Tensor, want: &Tensor, rtol: f64, atol: f64) -> Result<(), String> {
    let g = got.to_vec::<T>();
    let w = want.to_vec::<T>();
    for (i, (a, b)) in g.iter().zip(&w).enumerate() {
        let (a, b) = (a.to_f64(), b.to_f64());
        let ok = if a.is_nan() || b.is_nan() {
            a.is_nan() && b.is_nan()
        } else if a.is_infinite() || b.is_infinite() {
            a == b
        } else {
            (a - b).abs() <= atol + rtol * b.abs()
        };
        if !ok {
            return Err(format!("element {i}: got {a}, want {b}"));
        }
    }
    Ok(())
}

fn compare_tensor(got: &Tensor, want: &Tensor) -> Result<(), String> {
    if got.dtype() != want.dtype() {
        return Err(format!("dtype: got {}, want {}", got.dtype(), want.dtype()));
    }
    if got.shape() != want.shape() {
        return Err(format!(
            "shape: got {:?}, want {:?}",
            got.shape(),
            want.shape()
        ));
    }
    match want.dtype() {
        DType::Float32 => close::<f32>(got, want, 1e-5, 1e-6),
        DType::Float64 => close::<f64>(got, want, 1e-10, 1e-12),
        _ => {
            if got == want {
                Ok(())
            } else {
                Err(format!("values: got {got}, want {want}"))
            }
        }
    }
}

fn compare(got: &Value, want: &J, outputs: &HashMap<String, Tensor>) -> Result<(), String> {
    let o = want.as_object().unwrap();
    if let Some(name) = o.get("tensor") {
        let w = &outputs[name.as_str().unwrap()];
        let g = got
            .as_tensor()
            .ok_or_else(|| format!("expected a tensor, got {got:?}"))?;
        return compare_tensor(g, w);
    }
    if let Some(v) = o.get("tensors") {
        let Value::TensorList(g) = got else {
            return Err(format!("expected a tensor list, got {got:?}"));
        };
        let ws = v.as_array().unwrap();
        if g.len() != ws.len() {
            return Err(format!("list length: got {}, want {}", g.len(), ws.len()));
        }
        for (gt, wj) in g.iter().zip(ws) {
            compare(&Value::Tensor(gt.clone()), wj, outputs)?;
        }
        return Ok(());
    }
    let expected = decode(want, &HashMap::new());
    let same = match (got, &expected) {
        (Value::Int(a), Value::Int(b)) => a == b,
        (Value::Bool(a), Value::Bool(b)) => a == b,
        (Value::Float(a), Value::Float(b)) => {
            a == b || (a.is_nan() && b.is_nan()) || (a - b).abs() <= 1e-6 * b.abs()
        }
        (Value::IntList(a), Value::IntList(b)) => a == b,
        _ => false,
    };
    if same {
        Ok(())
    } else {
        Err(format!("got {got:?}, want {expected:?}"))
    }
}

/// PyTorch raises a few errors from its Python layer with another class than the core
/// (`float(t)` on many elements is a ValueError there, a RuntimeError in TorchScript); such
/// messages are listed here with the class the runtime reports.
fn python_kind(ty: &str, e: &RuntimeError) -> bool {
    e.kind().name() == ty
}

/// The oracle's `cases.json`.
fn manifest() -> J {
    serde_json::from_str(
        &std::fs::read_to_string(oracle_dir().join("cases.json")).expect("cases.json"),
    )
    .expect("valid json")
}

#[test]
fn golden_cases_match_pytorch() {
    let manifest = manifest();
    let inputs = load("inputs.npz");
    let outputs = load("outputs.npz");
    let cases = manifest["cases"].as_array().unwrap();
    assert!(cases.len() >= 300, "only {} golden cases", cases.len());
    let mut failures = Vec::new();
    let mut dtypes_seen = std::collections::HashSet::new();
    let mut infer_failures: Vec<String> = Vec::new();
    let mut infer_skipped: Vec<String> = Vec::new();
    for c in cases {
        let id = c["id"].as_i64().unwrap();
        let op = c["op"].as_str().unwrap();
        let pos: Vec<Value> = c["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| decode(a, &inputs))
            .collect();
        for v in &pos {
            if let Value::Tensor(t) = v {
                dtypes_seen.insert(t.dtype());
            }
        }
        let kw: Vec<(String, Value)> = c["kwargs"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), decode(v, &inputs)))
            .collect();
        let result = resolve(op, pos, kw)
            .map_err(RuntimeError::from)
            .and_then(|(id, args)| {
                let r = call(id, &args)?;
                // The specializer's static rule must agree with what the kernel did.
                let infos: Vec<ArgInfo> = args
                    .iter()
                    .map(|a| match a {
                        Value::Tensor(t) => ArgInfo::Tensor(TensorInfo {
                            dtype: t.dtype(),
                            rank: t.dim(),
                        }),
                        other => ArgInfo::Known(other.clone()),
                    })
                    .collect();
                match infer(id, &infos) {
                    Ok(types) => {
                        for (ty, v) in types.iter().zip(&r) {
                            let ok = match (ty, v) {
                                (TypeInfo::Tensor(ti), Value::Tensor(t)) => {
                                    ti.dtype == t.dtype() && ti.rank == t.dim()
                                }
                                (TypeInfo::TensorList(ti, _), Value::TensorList(ts)) => ts
                                    .iter()
                                    .all(|t| ti.dtype == t.dtype() && ti.rank == t.dim()),
                                (TypeInfo::Int, Value::Int(_))
                                | (TypeInfo::Float, Value::Float(_))
                                | (TypeInfo::Bool, Value::Bool(_))
                                | (TypeInfo::IntList, Value::IntList(_)) => true,
                                _ => false,
                            };
                            if !ok {
                                infer_failures.push(format!(
                                    "case {} {op}: infer says {ty:?}, kernel gave {v:?}",
                                    c["id"]
                                ));
                            }
                        }
                    }
                    Err(e) => infer_skipped.push(format!("{op}: {e}")),
                }
                Ok(r)
            });
        let desc = format!("case {id} {op} {} {}", c["args"], c["kwargs"]);
        match (result, c.get("error")) {
            (Ok(vals), None) => {
                let want = c["expect"].as_array().unwrap();
                if vals.len() != want.len() {
                    failures.push(format!(
                        "{desc}: {} results, want {}",
                        vals.len(),
                        want.len()
                    ));
                    continue;
                }
                for (g, w) in vals.iter().zip(want) {
                    if let Err(e) = compare(g, w, &outputs) {
                        failures.push(format!("{desc}: {e}"));
                    }
                }
            }
            (Ok(vals), Some(err)) => {
                failures.push(format!("{desc}: expected error {err}, got {vals:?}"))
            }
            (Err(e), None) => failures.push(format!("{desc}: unexpected error {e}")),
            (Err(e), Some(err)) => {
                let ty = err["type"].as_str().unwrap();
                let msg = err["message"].as_str().unwrap();
                if !python_kind(ty, &e) {
                    failures.push(format!(
                        "{desc}: error class {} ({e}), want {ty}: {msg}",
                        e.kind().name()
                    ));
                } else if ty != "TypeError" && e.to_string() != msg {
                    failures.push(format!("{desc}: message {e:?}, want {msg:?}"));
                }
            }
        }
    }
    assert_eq!(dtypes_seen.len(), 5, "all dtypes covered");
    assert!(
        infer_failures.is_empty(),
        "schema::infer disagrees with kernels:\n{}",
        infer_failures.join("\n")
    );
    // `infer` may decline (data-dependent shapes such as `squeeze()`), but only rarely.
    assert!(
        infer_skipped.len() < 20,
        "infer declined {} cases:\n{}",
        infer_skipped.len(),
        infer_skipped.join("\n")
    );
    assert!(
        failures.is_empty(),
        "{} of {} golden cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn reprs_match_pytorch() {
    let manifest = manifest();
    let inputs = load("inputs.npz");
    let mut failures = Vec::new();
    let reprs = manifest["reprs"].as_array().unwrap();
    for r in reprs {
        let t = tensor_arg(&r["tensor"], &inputs);
        let want = r["repr"].as_str().unwrap();
        let got = t.to_string();
        if got != want {
            failures.push(format!("got:\n{got}\nwant:\n{want}\n"));
        }
    }
    for f in manifest["float_reprs"].as_array().unwrap() {
        let x = float_of(&f["value"]);
        let want = f["repr"].as_str().unwrap();
        let got = pyjit_runtime::Scalar::Float(x).to_string();
        if got != want {
            failures.push(format!("float {x}: got {got}, want {want}"));
        }
    }
    assert!(reprs.len() >= 50);
    assert!(
        failures.is_empty(),
        "{} repr mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
