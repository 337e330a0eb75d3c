//! Property test: any op of the schema table applied to random arguments of the declared kinds
//! (random dtypes, ranks 0-3, empty dims, non-contiguous views, out-of-range dims and indices)
//! never panics; it returns results that are well-formed tensors, or a typed `RuntimeError`.

use proptest::prelude::*;
use proptest::test_runner::TestRng;
use pyjit_runtime::schema::{self, ArgType};
use pyjit_runtime::{DType, OpId, Tensor, TensorIndex, Value, call};

fn random_tensor(rng: &mut TestRng) -> Tensor {
    let rank = rng.random_range(0..4usize);
    let shape: Vec<usize> = (0..rank)
        .map(|_| {
            if rng.random_bool(0.1) {
                0
            } else {
                rng.random_range(1..4usize)
            }
        })
        .collect();
    let n: usize = shape.iter().product();
    let dtype = DType::ALL[rng.random_range(0..5usize)];
    let vals: Vec<f64> = (0..n)
        .map(|_| match rng.random_range(0..10u8) {
            0 => f64::NAN,
            1 => f64::INFINITY,
            2 => -0.0,
            3 => 0.0,
            _ => rng.random_range(-5.0..5.0f64).round(),
        })
        .collect();
    let base = Tensor::from_vec(vals, &shape)
        .unwrap()
        .to_dtype(dtype)
        .unwrap();
    if rank >= 2 && rng.random_bool(0.3) {
        base.transpose(0, 1).unwrap()
    } else {
        base
    }
}

/// Mostly small ints (valid dims, sizes, indices), sometimes values that overflow naive size
/// arithmetic.
fn small_or_extreme(rng: &mut TestRng) -> i64 {
    match rng.random_range(0..20u8) {
        0 => i64::MIN,
        1 => i64::MAX,
        2 => 1 << 40,
        _ => rng.random_range(-4..5i64),
    }
}

fn random_index(rng: &mut TestRng) -> TensorIndex {
    match rng.random_range(0..6u8) {
        0 => TensorIndex::Int(rng.random_range(-4..4i64)),
        1 => TensorIndex::Slice {
            start: if rng.random_bool(0.5) {
                Some(rng.random_range(-4..4i64))
            } else {
                None
            },
            stop: if rng.random_bool(0.5) {
                Some(rng.random_range(-4..4i64))
            } else {
                None
            },
            step: rng.random_range(-1..3i64),
        },
        2 => TensorIndex::None,
        3 => TensorIndex::Ellipsis,
        _ => TensorIndex::Tensor(random_tensor(rng)),
    }
}

fn random_value(ty: &ArgType, rng: &mut TestRng) -> Value {
    match ty {
        ArgType::Optional(inner) => {
            if rng.random_bool(0.3) {
                Value::None
            } else {
                random_value(inner, rng)
            }
        }
        ArgType::Tensor => Value::Tensor(random_tensor(rng)),
        ArgType::Scalar => match rng.random_range(0..3u8) {
            0 => Value::Bool(rng.random_bool(0.5)),
            1 => Value::Int(rng.random_range(-3..4i64)),
            _ => Value::Float(rng.random_range(-3.0..3.0f64)),
        },
        ArgType::Int => Value::Int(small_or_extreme(rng)),
        ArgType::Float => Value::Float(rng.random_range(-3.0..3.0f64)),
        ArgType::Bool => Value::Bool(rng.random_bool(0.5)),
        ArgType::Str => Value::Str(
            ["none", "tanh", "floor", "trunc", "bad"][rng.random_range(0..5usize)].into(),
        ),
        ArgType::ScalarType => Value::DType(DType::ALL[rng.random_range(0..5usize)]),
        ArgType::IntList(_) => {
            let n = rng.random_range(0..4usize);
            Value::IntList((0..n).map(|_| small_or_extreme(rng)).collect())
        }
        ArgType::FloatList => Value::FloatList(vec![1.0, -2.0]),
        ArgType::TensorList => {
            let n = rng.random_range(0..3usize);
            Value::TensorList((0..n).map(|_| random_tensor(rng)).collect())
        }
        ArgType::Indices => {
            let n = rng.random_range(0..4usize);
            Value::Indices((0..n).map(|_| random_index(rng)).collect())
        }
        ArgType::Any => {
            let n = rng.random_range(0..4usize);
            Value::List(
                (0..n)
                    .map(|_| Value::Float(rng.random_range(-3.0..3.0f64)))
                    .collect(),
            )
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4000, ..ProptestConfig::default() })]

    #[test]
    fn random_ops_never_panic(op in 0..schema::all().count(), seed in any::<u64>()) {
        let mut rng = TestRng::from_seed(proptest::test_runner::RngAlgorithm::ChaCha, &{
            let mut s = [0u8; 32];
            s[..8].copy_from_slice(&seed.to_le_bytes());
            s
        });
        let id = OpId(op as u16);
        let s = schema::schema(id);
        let args: Vec<Value> = s.params.iter().map(|p| random_value(&p.ty, &mut rng)).collect();
        match call(id, &args) {
            Ok(results) => {
                for r in results {
                    if let Value::Tensor(t) = r {
                        // Results are well-formed: printable and, when small enough to
                        // materialize (an expanded view may be huge), readable with a consistent
                        // element count.
                        if t.numel() <= 1 << 20 {
                            prop_assert_eq!(t.to_vec::<f64>().len(), t.numel());
                        }
                        let _ = t.to_string();
                    }
                }
            }
            Err(e) => {
                // A typed error with a non-empty message.
                prop_assert!(!e.to_string().is_empty(), "{:?}", e);
            }
        }
    }
}
