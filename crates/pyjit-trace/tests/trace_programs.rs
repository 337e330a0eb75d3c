//! Programs that scripting rejects (comprehensions, lambda, nested defs, dicts, type-changing
//! variables, heterogeneous lists and tuples, strings, `**kwargs`, generators) still trace and
//! run: tests/trace/*.py, each called through one traced function on every argument set
//! (`args0()`, `args1()`, …, which take different paths), compared with PyTorch's results in
//! tests/trace/expected.json (regenerate with `tests/trace/gen.py`).

mod common;

use pyjit_interp::Value;
use pyjit_trace::{TraceOptions, TracedFunction};
use serde_json::Value as Json;

fn close(want: f64, got: f64, dtype: &str) -> bool {
    let (rtol, atol) = match dtype {
        "float32" => (1e-4, 1e-5),
        "float64" => (1e-9, 1e-12),
        _ => (0.0, 0.0),
    };
    want == got || (want - got).abs() <= atol + rtol * want.abs()
}

fn flatten_json(v: &Json, out: &mut Vec<f64>) {
    match v {
        Json::Array(items) => items.iter().for_each(|i| flatten_json(i, out)),
        Json::Bool(b) => out.push(*b as u8 as f64),
        Json::Number(n) => out.push(n.as_f64().unwrap_or(f64::NAN)),
        _ => {}
    }
}

/// `None` when `got` is the encoded `want` (see gen.py's `encode`).
fn compare(want: &Json, got: &Value) -> Option<String> {
    let mismatch = || {
        Some(format!(
            "expected {want}, got {}",
            pyjit_interp::format::py_repr(got)
        ))
    };
    match (want, got) {
        (Json::Null, Value::None) => None,
        (Json::Object(o), _) => {
            if let Some(t) = o.get("tensor") {
                let Value::Tensor(g) = got else {
                    return mismatch();
                };
                let dtype = o["dtype"].as_str().unwrap_or("");
                if g.dtype().name() != dtype {
                    return Some(format!("dtype {dtype} vs {}", g.dtype().name()));
                }
                let shape: Vec<usize> = o["shape"]
                    .as_array()
                    .map(|a| a.iter().map(|d| d.as_u64().unwrap_or(0) as usize).collect())
                    .unwrap_or_default();
                if g.shape() != shape.as_slice() {
                    return Some(format!("shape {shape:?} vs {:?}", g.shape()));
                }
                let mut w = Vec::new();
                flatten_json(t, &mut w);
                let gv = g.to_vec::<f64>();
                return w
                    .iter()
                    .zip(&gv)
                    .all(|(a, b)| close(*a, *b, dtype))
                    .then_some(())
                    .map_or_else(mismatch, |_| None);
            }
            if let Some(items) = o.get("tuple").or_else(|| o.get("list")) {
                let gi = match got {
                    Value::Tuple(t) if o.contains_key("tuple") => t.to_vec(),
                    Value::List(l) if o.contains_key("list") => l.snapshot(),
                    _ => return mismatch(),
                };
                let wi = items.as_array().cloned().unwrap_or_default();
                if wi.len() != gi.len() {
                    return mismatch();
                }
                return wi.iter().zip(&gi).find_map(|(w, g)| compare(w, g));
            }
            let ok = match (o.iter().next(), got) {
                (Some((k, v)), Value::Int(i)) if k == "int" => v.as_i64() == Some(*i),
                (Some((k, v)), Value::Float(x)) if k == "float" => {
                    v.as_f64().is_some_and(|w| close(w, *x, "float64"))
                }
                (Some((k, v)), Value::Bool(b)) if k == "bool" => v.as_bool() == Some(*b),
                (Some((k, v)), Value::Str(s)) if k == "str" => v.as_str() == Some(&**s),
                _ => false,
            };
            if ok { None } else { mismatch() }
        }
        _ => mismatch(),
    }
}

#[test]
fn programs_scripting_rejects_trace_and_run() {
    let dir = common::repo_root().join("tests/trace");
    let expected: Json = serde_json::from_str(
        &std::fs::read_to_string(dir.join("expected.json")).expect("expected.json"),
    )
    .expect("json");
    let expected = expected.as_object().expect("object");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("tests/trace")
        .filter_map(|e| {
            let n = e.ok()?.file_name().to_string_lossy().to_string();
            (n.ends_with(".py") && n != "gen.py").then(|| n.trim_end_matches(".py").to_string())
        })
        .collect();
    names.sort();
    assert!(names.len() >= 25, "only {} programs", names.len());
    let mut failures = Vec::new();
    let mut retraced = 0;
    for name in &names {
        let file = pyjit_syntax::SourceFile::new(
            format!("{name}.py"),
            std::fs::read_to_string(dir.join(format!("{name}.py"))).expect("program"),
        );
        let module = pyjit_syntax::parse_module(&file).expect("parses");
        if pyjit_script::script_module(&file, &module).is_ok() {
            failures.push(format!(
                "{name}: scripting accepts it; it should exercise what only tracing runs"
            ));
        }
        let cases = expected[name.as_str()].as_array().expect("cases");
        let mut tf =
            TracedFunction::new(file.clone(), module.clone(), "f", TraceOptions::default());
        for (k, case) in cases.iter().enumerate() {
            let args = match pyjit_trace::eval_function_to(
                &file,
                &module,
                &format!("args{k}"),
                vec![],
                &mut Vec::new(),
            ) {
                Ok(Value::Tuple(a)) => a.to_vec(),
                other => panic!("{name}: args{k}() gave {other:?}"),
            };
            for (mode, got) in [
                ("eager", {
                    let mut out = Vec::new();
                    let r =
                        pyjit_trace::eval_function_to(&file, &module, "f", args.clone(), &mut out);
                    (r, out)
                }),
                ("traced", {
                    let mut out = Vec::new();
                    let r = tf.call_to(args.clone(), &mut out);
                    (r, out)
                }),
            ] {
                let (r, out) = got;
                match r {
                    Err(e) => failures.push(format!("{name} case {k} ({mode}): raised {e}")),
                    Ok(v) => {
                        if let Some(why) = compare(&case["result"], &v) {
                            failures.push(format!("{name} case {k} ({mode}): {why}"));
                        }
                        let want = case["stdout"].as_str().unwrap_or("");
                        if String::from_utf8_lossy(&out) != want {
                            failures.push(format!(
                                "{name} case {k} ({mode}): stdout {:?} vs {want:?}",
                                String::from_utf8_lossy(&out)
                            ));
                        }
                    }
                }
            }
        }
        if tf.stats.traces > 1 {
            retraced += 1;
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        retraced >= 15,
        "only {retraced} programs re-traced on a later argument set"
    );
}
