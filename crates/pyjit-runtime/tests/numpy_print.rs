//! NumPy's repr/str of arrays (`pyjit_runtime::print_numpy`) against what real NumPy printed for
//! the same values (`tests/oracle/numpy_repr/gen.py` wrote `cases.json`).

use pyjit_runtime::Tensor;
use pyjit_runtime::print_numpy::{numpy_array_repr, numpy_array_str, numpy_scalar_repr};
use serde_json::Value as Json;

fn tensor(case: &Json) -> Tensor {
    let shape: Vec<usize> = case["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    let values = case["values"].as_array().unwrap();
    let float = |v: &Json| f64::from_bits(u64::from_str_radix(v.as_str().unwrap(), 16).unwrap());
    let t = match case["dtype"].as_str().unwrap() {
        "float64" => Tensor::from_vec(values.iter().map(float).collect::<Vec<f64>>(), &shape),
        "float32" => Tensor::from_vec(
            values.iter().map(|v| float(v) as f32).collect::<Vec<f32>>(),
            &shape,
        ),
        "int64" => Tensor::from_vec(
            values
                .iter()
                .map(|v| v.as_i64().unwrap())
                .collect::<Vec<i64>>(),
            &shape,
        ),
        "int32" => Tensor::from_vec(
            values
                .iter()
                .map(|v| v.as_i64().unwrap() as i32)
                .collect::<Vec<i32>>(),
            &shape,
        ),
        "bool" => Tensor::from_vec(
            values
                .iter()
                .map(|v| v.as_i64().unwrap() != 0)
                .collect::<Vec<bool>>(),
            &shape,
        ),
        other => panic!("dtype {other}"),
    };
    t.unwrap()
}

#[test]
fn arrays_print_as_numpy_printed_them() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/oracle/numpy_repr/cases.json"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let json: Json = serde_json::from_str(&text).unwrap();
    let cases = json["cases"].as_array().unwrap();
    assert!(cases.len() > 100);
    let mut failures = Vec::new();
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let t = tensor(case);
        let mut check = |what: &str, got: String, want: &Json| {
            let want = want.as_str().unwrap();
            if got != want {
                failures.push(format!(
                    "{name} {what}:\n  numpy: {want:?}\n  pyjit: {got:?}"
                ));
            }
        };
        check("repr", numpy_array_repr(&t), &case["repr"]);
        check("str", numpy_array_str(&t), &case["str"]);
        if let Some(want) = case.get("scalar_repr") {
            check("scalar repr", numpy_scalar_repr(&t), want);
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases differ from NumPy:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
