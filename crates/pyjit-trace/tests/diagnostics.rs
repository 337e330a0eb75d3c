//! Rendered TracerWarnings for each kind of guard, and eager run-time errors with their
//! Python classes, messages and source locations (snapshots).

mod common;

use common::{parsed, t, trace_of};
use pyjit_interp::Value;
use pyjit_trace::{TraceOptions, eval_function_to};

const GUARDS: &str = r#"import torch


def f(x, n: int):
    total = 0.0
    for row in x:
        total += float(row.sum())
    k = int(x.argmax())
    m = x.size(0) * 2
    if x.max() > 1:
        total = total + x[k].item()
    return x * total + m + n * 2
"#;

#[test]
fn every_guard_kind_warns_with_its_source_line() {
    let (file, m) = parsed("guards.py", GUARDS);
    let args = vec![t(&[1.0, 3.0, 2.0]), Value::Int(4)];
    let tr = trace_of(&file, &m, "f", args, TraceOptions::default()).expect("traces");
    insta::assert_snapshot!("guard_kinds_warnings", tr.render_warnings(&file));
    let guards: Vec<String> = tr
        .guards
        .iter()
        .map(|g| format!("{} {:?}: {}", file.location(g.span), g.reason, g.message))
        .collect();
    insta::assert_snapshot!("guard_kinds_list", guards.join("\n"));
}

fn eager_error(src: &str, args: Vec<Value>) -> String {
    let (file, m) = parsed("err.py", src);
    let mut out = Vec::new();
    match eval_function_to(&file, &m, "f", args, &mut out) {
        Ok(v) => panic!("expected an error, got {v:?}"),
        Err(e) => format!("{}\n{}", e, e.render(&file)),
    }
}

#[test]
fn eager_errors_are_python_exceptions_with_spans() {
    // Each case: its name, the source of `f`, and the elements of its one tensor argument.
    let cases: &[(&str, &str, &[f32])] = &[
        ("name_error", "def f(x):\n    return x + y\n", &[1.0]),
        (
            "type_error_str_plus_int",
            "def f(x):\n    s = 'a' + 1\n    return x\n",
            &[1.0],
        ),
        (
            "zero_division",
            "def f(x):\n    n = 3\n    return x * (n // (n - 3))\n",
            &[1.0],
        ),
        (
            "index_error",
            "def f(x):\n    xs = [x, x]\n    return xs[5]\n",
            &[1.0],
        ),
        (
            "key_error",
            "def f(x):\n    d = {'a': x}\n    return d['b']\n",
            &[1.0],
        ),
        (
            "assertion",
            "def f(x):\n    assert x.sum() > 10, f'sum is {x.sum().item()}'\n    return x\n",
            &[1.0],
        ),
        (
            "raise_value_error",
            "def f(x):\n    raise ValueError('bad input')\n",
            &[1.0],
        ),
        (
            "shape_mismatch",
            "import torch\n\ndef f(x):\n    return x + torch.ones(4)\n",
            &[1.0, 2.0],
        ),
        (
            "too_many_args",
            "def g(a):\n    return a\n\ndef f(x):\n    return g(x, x)\n",
            &[1.0],
        ),
        (
            "ambiguous_bool",
            "def f(x):\n    if x:\n        return x\n    return -x\n",
            &[1.0, 2.0],
        ),
        (
            "unpack",
            "def f(x):\n    a, b = [x, x, x]\n    return a\n",
            &[1.0],
        ),
        ("recursion", "def f(x):\n    return f(x)\n", &[1.0]),
        (
            "bad_method",
            "def f(x):\n    return x.no_such_method()\n",
            &[1.0],
        ),
    ];
    let mut all = String::new();
    for (name, src, args) in cases {
        all.push_str(&format!(
            "==== {name}\n{}\n",
            eager_error(src, vec![t(args)])
        ));
    }
    insta::assert_snapshot!("eager_errors", all);
}
