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

fn expected() -> serde_json::Map<String, Json> {
    let path = common::repo_root().join("tests/trace/expected.json");
    let v: Json =
        serde_json::from_str(&std::fs::read_to_string(path).expect("expected.json")).expect("json");
    v.as_object().cloned().expect("object")
}

/// Programs written when only tracing ran them, which scripting accepts since issue 14 (list
/// comprehensions, f-strings as values, straight-line re-binding, as TorchScript does); they stay
/// here as tracing and eager tests.
const SCRIPTING_ACCEPTS_TOO: &[&str] = &[
    "comp_filter",
    "comp_listcomp",
    "comp_nested",
    "dict_str_keys",
    "fstring_print",
    "type_change",
];

/// Checks that scripting rejects program `name`, then calls one traced function (and the eager
/// evaluator) on each argument set; returns how many traces the traced function made.
fn run_program(name: &str) -> usize {
    let dir = common::repo_root().join("tests/trace");
    let expected = expected();
    let file = pyjit_syntax::SourceFile::new(
        format!("{name}.py"),
        std::fs::read_to_string(dir.join(format!("{name}.py"))).expect("program"),
    );
    let module = pyjit_syntax::parse_module(&file).expect("parses");
    let mut failures = Vec::new();
    let scripts = pyjit_script::script_module(&file, &module).is_ok();
    let also_scripted = SCRIPTING_ACCEPTS_TOO.contains(&name);
    if scripts && !also_scripted {
        failures
            .push("scripting accepts it; it should exercise what only tracing runs".to_string());
    }
    if !scripts && also_scripted {
        failures.push("listed in SCRIPTING_ACCEPTS_TOO but scripting rejects it".to_string());
    }
    let cases = expected[name].as_array().expect("cases");
    let mut tf = TracedFunction::new(file.clone(), module.clone(), "f", TraceOptions::default());
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
        let mut eager_out = Vec::new();
        let eager =
            pyjit_trace::eval_function_to(&file, &module, "f", args.clone(), &mut eager_out);
        let mut traced_out = Vec::new();
        let traced = tf.call_to(args, &mut traced_out);
        for (mode, r, out) in [("eager", eager, eager_out), ("traced", traced, traced_out)] {
            match r {
                Err(e) => failures.push(format!("case {k} ({mode}): raised {e}")),
                Ok(v) => {
                    if let Some(why) = compare(&case["result"], &v) {
                        failures.push(format!("case {k} ({mode}): {why}"));
                    }
                    let want = case["stdout"].as_str().unwrap_or("");
                    let got = String::from_utf8_lossy(&out);
                    if got != want {
                        failures.push(format!("case {k} ({mode}): stdout {got:?} vs {want:?}"));
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{name}:\n{}", failures.join("\n"));
    tf.stats.traces
}

macro_rules! programs {
    ($($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                run_program(stringify!($name));
            }
        )*

        const PROGRAMS: &[&str] = &[$(stringify!($name)),*];
    };
}

programs!(
    any_all,
    class_module,
    closure_def,
    comp_filter,
    comp_listcomp,
    comp_nested,
    dict_comp,
    dict_counts,
    dict_int_keys,
    dict_str_keys,
    fstring_print,
    func_table,
    generator_sum,
    hetero_list,
    hetero_tuple,
    isinstance_dispatch,
    kwargs_splat,
    lambda_basic,
    lambda_defaults,
    lambda_sorted,
    named_weights,
    none_accumulate,
    recursive_flatten,
    star_unpack_del,
    string_format,
    try_except,
    type_change,
    type_change_branch,
    while_history,
    zip_comp,
);

#[test]
fn every_program_has_a_test_and_most_retrace() {
    let dir = common::repo_root().join("tests/trace");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("tests/trace")
        .filter_map(|e| {
            let n = e.ok()?.file_name().to_string_lossy().to_string();
            (n.ends_with(".py") && n != "gen.py").then(|| n.trim_end_matches(".py").to_string())
        })
        .collect();
    names.sort();
    assert_eq!(
        names, PROGRAMS,
        "tests/trace/*.py and the programs! list differ"
    );
    assert!(names.len() >= 25);
    assert_eq!(
        expected().len(),
        names.len(),
        "expected.json is stale: run tests/trace/gen.py"
    );
    let retraced = PROGRAMS.iter().filter(|n| run_program(n) > 1).count();
    assert!(
        retraced >= 15,
        "only {retraced} programs re-traced on a later argument set"
    );
}
