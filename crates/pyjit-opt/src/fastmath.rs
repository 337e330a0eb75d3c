//! `fastmath`: the program asks for cheaper math kernels of a larger error. Every op of
//! [`FAST_MATH_FORMS`] (`tensor.tanh`) becomes its fast form (`tensor.tanh_fast`) in the
//! module a program is built from, before anything runs or specializes it, so the interpreter,
//! every pass and native code all compute the fast form, and `--emit ir` shows it.
//!
//! This is not a pass: passes never change a float result ([`crate::passes`]), and this
//! changes them, by request. It runs once per module, at `-O0` too, and the rest of the
//! pipeline keeps its exactness rule over the IR it yields.

use pyjit_ir::schema::{self, FAST_MATH_FORMS};
use pyjit_ir::{Module, OpKind};

/// Replaces every op of [`FAST_MATH_FORMS`] in `m` (every function, every region) by its fast
/// form; returns how many it replaced. The operands, results and spans stay as they are, so the
/// module still verifies.
pub fn lower_fastmath(m: &mut Module) -> usize {
    let pairs: Vec<(schema::OpId, schema::OpId)> = FAST_MATH_FORMS
        .iter()
        .filter_map(|&(from, to)| Some((schema::lookup(from)?, schema::lookup(to)?)))
        .collect();
    let mut replaced = 0;
    for (_, f) in m.funcs.iter_mut() {
        for op in f.all_ops() {
            if let OpKind::Tensor(id) = f.op(op).kind
                && let Some(&(_, fast)) = pairs.iter().find(|(from, _)| *from == id)
            {
                f.op_mut(op).kind = OpKind::Tensor(fast);
                replaced += 1;
            }
        }
    }
    replaced
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_fast_form_is_an_op_of_the_same_signature() {
        for &(from, to) in FAST_MATH_FORMS {
            let a = schema::schema(schema::lookup(from).expect("an op"));
            let b = schema::schema(schema::lookup(to).expect("an op"));
            assert_eq!(a.params.len(), b.params.len(), "{from} / {to}");
            assert_eq!(a.returns.len(), b.returns.len(), "{from} / {to}");
        }
    }

    #[test]
    fn tanh_becomes_tanh_fast_everywhere_and_nothing_else_changes() {
        let src = "func @f(%x: Tensor, %n: int) -> Tensor {
  %t: Tensor = tensor.tanh(%x)
  %s: Tensor = tensor.sigmoid(%t)
  %go: bool = const true
  %r: Tensor = loop(%n, %go, %s) body(%i: int, %a: Tensor) {
    %b: Tensor = tensor.tanh(%a)
    yield %go, %b
  }
  return %r
}
";
        let mut m = pyjit_ir::parse_module(src).expect("parses");
        assert_eq!(lower_fastmath(&mut m), 2);
        pyjit_ir::verify_module(&m).expect("verifies");
        let text = pyjit_ir::print_module(&m);
        assert_eq!(text.matches("tensor.tanh_fast(").count(), 2, "{text}");
        assert!(!text.contains("tensor.tanh("), "{text}");
        assert!(text.contains("tensor.sigmoid("), "{text}");
        // Lowering twice changes nothing more.
        assert_eq!(lower_fastmath(&mut m), 0);
    }
}
