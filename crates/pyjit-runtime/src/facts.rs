//! One record of facts per op ([`OpFacts`]), next to its schema: what the IR's effect
//! predicates, the optimizer and the tracer read about a tensor op instead of keeping lists of
//! op names of their own.
//!
//! The record of op `id` is derived from its schema (`OpSchema::kind`, `inplace`, its return
//! types) and from [`raise_class`], the one place that says which ops cannot raise. The tests
//! below walk the whole table: every op has a record, every in-place variant exists, and every
//! op claimed not to raise is called on edge-case inputs and must not raise.
//!
//! Invariants:
//! - an op whose record says [`MayRaise::Never`] returns `Ok` for every well-typed argument list;
//!   [`MayRaise::NeverOnFloat`] likewise when its tensor operand is float (NaN and inf are
//!   values, not errors); [`MayRaise::NeverOnNumbers`] when its tensor operand is numeric (not
//!   bool) and its other operands are Python ints or floats (not bools: `x - True` raises) that
//!   [`number_operand_ok`] accepts (an
//!   integral tensor's `alpha` must not be a float);
//! - [`Effects::writes_first`] holds exactly for in-place ops (the name ends in `_`), which write
//!   their first operand and return it;
//! - [`OpFacts::inplace_variant`], when set, names an op with the same parameters whose record
//!   writes its first operand.

use crate::schema::{self, ArgType, OpId, OpKind, OpSchema};
use std::sync::OnceLock;

/// What an op does besides computing its results.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Effects {
    /// Writes into its first argument (and returns it): the in-place ops.
    pub writes_first: bool,
    /// A result is a mutable object (a tensor or list) rather than a Python scalar: two calls
    /// with equal operands are interchangeable only if neither result is ever mutated.
    pub result_mutable: bool,
}

/// When an op can fail at run time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MayRaise {
    /// Never, for any well-typed arguments (metadata queries, copies).
    Never,
    /// Never when its tensor operand is float (elementwise math: NaN and inf are values).
    NeverOnFloat,
    /// Never when its tensor operand is numeric and its other operands are Python ints or
    /// floats that [`number_operand_ok`] accepts (`add.Scalar`: broadcasting a number cannot
    /// fail).
    NeverOnNumbers,
    /// It may raise; a caller that knows more (constant dims, shapes) may refine this.
    Maybe,
}

/// The facts about one op (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpFacts {
    /// The op's kind in the schema table.
    pub kind: OpKind,
    pub effects: Effects,
    pub may_raise: MayRaise,
    /// The in-place variant (`add.Tensor` → `add_.Tensor`), if the table has one.
    pub inplace_variant: Option<OpId>,
}

/// For a [`MayRaise::NeverOnNumbers`] op: whether the Python number passed for parameter
/// `index` keeps the call from raising. PyTorch rejects a float `alpha` for an integral tensor
/// ("For integral input tensors, argument alpha must not be a floating point number").
pub fn number_operand_ok(
    s: &OpSchema,
    index: usize,
    tensor_is_float: bool,
    is_float: bool,
) -> bool {
    let alpha = s.params.get(index).is_some_and(|p| p.name == "alpha");
    !(alpha && is_float && !tensor_is_float)
}

/// Which ops cannot raise: the one list of it (by the qualified name, `"size"`, `"add.Scalar"`).
pub fn raise_class(qualified: &str) -> MayRaise {
    match qualified {
        "dim" | "numel" | "size" | "clone" | "contiguous" | "np_element" | "scalar_tensor" => {
            MayRaise::Never
        }
        "neg" | "abs" | "exp" | "log" | "sqrt" | "sin" | "cos" | "tanh" | "tanh_fast"
        | "sigmoid" | "relu" | "floor" | "ceil" | "trunc" | "square" | "reciprocal" => {
            MayRaise::NeverOnFloat
        }
        "add.Scalar" | "sub.Scalar" | "mul.Scalar" => MayRaise::NeverOnNumbers,
        _ => MayRaise::Maybe,
    }
}

fn derive(s: &OpSchema) -> OpFacts {
    let result_mutable = s
        .returns
        .iter()
        .any(|r| !matches!(r.ty, ArgType::Int | ArgType::Float | ArgType::Bool));
    let inplace_variant = if s.inplace {
        None
    } else {
        let want = format!("{}_", s.name);
        schema::overloads(&want)
            .find(|(_, v)| v.overload == s.overload && v.params.len() == s.params.len())
            .map(|(id, _)| id)
    };
    OpFacts {
        kind: s.kind,
        effects: Effects {
            writes_first: s.inplace,
            result_mutable,
        },
        may_raise: raise_class(&s.qualified_name()),
        inplace_variant,
    }
}

/// The record of op `id`.
pub fn facts(id: OpId) -> &'static OpFacts {
    static FACTS: OnceLock<Vec<OpFacts>> = OnceLock::new();
    let all = FACTS.get_or_init(|| schema::all().map(|(_, s)| derive(s)).collect());
    // Ids come from the table; a forged one gets the first record, as `schema` does.
    all.get(id.0 as usize).unwrap_or(&all[0])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Tensor;
    use crate::value::Value;

    /// Edge-case float tensors: ±0, ±inf, NaN, subnormal, huge, negative.
    fn float_inputs() -> Vec<Tensor> {
        let v = vec![
            0.0,
            -0.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            5e-324,
            1e308,
            -2.5,
        ];
        let mut out = vec![Tensor::from_vec(v.clone(), &[8]).unwrap()];
        out.push(Tensor::from_vec(v.iter().map(|&x| x as f32).collect(), &[2, 4]).unwrap());
        out.push(Tensor::from_vec(vec![1.5f32], &[]).unwrap());
        out.push(Tensor::from_vec(Vec::<f64>::new(), &[0, 3]).unwrap());
        out
    }

    fn numeric_inputs() -> Vec<Tensor> {
        let mut out = float_inputs();
        out.push(Tensor::from_vec(vec![i64::MIN, -1, 0, i64::MAX], &[4]).unwrap());
        out.push(Tensor::from_vec(vec![i32::MIN, 7], &[2, 1]).unwrap());
        out
    }

    #[test]
    fn every_op_has_a_record_and_variants_exist() {
        for (id, s) in schema::all() {
            let f = facts(id);
            assert_eq!(
                f.effects.writes_first,
                s.name.ends_with('_'),
                "{}",
                s.signature
            );
            if let Some(v) = f.inplace_variant {
                assert!(facts(v).effects.writes_first, "{} -> {v}", s.signature);
                assert_eq!(schema::schema(v).params.len(), s.params.len());
            }
            if f.may_raise != MayRaise::Maybe {
                assert!(
                    !s.inplace,
                    "{}: an in-place op writes and may alias",
                    s.signature
                );
            }
        }
        for q in [
            "dim",
            "numel",
            "size",
            "clone",
            "contiguous",
            "np_element",
            "neg",
            "abs",
            "exp",
            "log",
            "sqrt",
            "sin",
            "cos",
            "tanh",
            "sigmoid",
            "relu",
            "floor",
            "ceil",
            "trunc",
            "square",
            "reciprocal",
            "add.Scalar",
            "sub.Scalar",
            "mul.Scalar",
        ] {
            let id = schema::lookup(q).unwrap_or_else(|| panic!("{q} is not an op"));
            assert_eq!(schema::schema(id).qualified_name(), q);
            assert_ne!(facts(id).may_raise, MayRaise::Maybe, "{q}");
        }
    }

    #[test]
    fn ops_claimed_not_to_raise_do_not_raise() {
        let mut checked = 0;
        for (id, s) in schema::all() {
            let inputs = match facts(id).may_raise {
                MayRaise::Maybe => continue,
                MayRaise::Never | MayRaise::NeverOnNumbers => numeric_inputs(),
                MayRaise::NeverOnFloat => float_inputs(),
            };
            let numbers = [
                Value::Int(3),
                Value::Int(i64::MIN),
                Value::Float(f64::NAN),
                Value::Float(-0.0),
            ];
            for t in inputs {
                // The tensor first (or, for an op of a number such as `scalar_tensor`, each
                // number); every other parameter a number, each dtype where it takes one, or
                // its default.
                let first = match s.params.first().map(|p| &p.ty) {
                    Some(ArgType::Scalar) => numbers.to_vec(),
                    _ => vec![Value::Tensor(t.clone())],
                };
                let mut arg_sets: Vec<Vec<Value>> = first.into_iter().map(|v| vec![v]).collect();
                let tensor_is_float = t.dtype().is_float();
                for (i, p) in s.params.iter().enumerate().skip(1) {
                    let mut next = Vec::new();
                    for set in &arg_sets {
                        let choices: Vec<Value> = match (&p.ty, &p.default) {
                            (ArgType::Scalar, _) => numbers
                                .iter()
                                .filter(|n| {
                                    let f = matches!(n, Value::Float(_));
                                    number_operand_ok(s, i, tensor_is_float, f)
                                })
                                .cloned()
                                .collect(),
                            (ArgType::Optional(inner), Some(d))
                                if **inner == ArgType::ScalarType =>
                            {
                                std::iter::once(d.to_value())
                                    .chain(crate::DType::ALL.map(Value::DType))
                                    .collect()
                            }
                            (_, Some(d)) => vec![d.to_value()],
                            (ty, None) => panic!("{}: no sample for {ty:?}", s.signature),
                        };
                        for c in choices {
                            let mut v = set.clone();
                            v.push(c);
                            next.push(v);
                        }
                    }
                    arg_sets = next;
                }
                for args in arg_sets {
                    let r = crate::dispatch::call(id, &args);
                    assert!(
                        r.is_ok(),
                        "{} raised on {:?} {:?}: {:?}",
                        s.signature,
                        t.dtype(),
                        t.shape(),
                        r.err()
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 50, "only {checked} calls checked");
    }
}
