//! Loop-invariant code motion out of `loop` regions.
//!
//! An op at the top level of a loop body moves to just before the `loop` when all of its
//! operands are defined outside the body and:
//! - it has no side effects and owns no regions;
//! - if it reads mutable memory (tensor ops, `list.get`/`list.len`, `str.of` of a tensor), the
//!   body writes no memory (no in-place op, list write or call);
//! - if it returns a fresh object (a tensor, a list), nothing in the whole function writes
//!   memory (otherwise sharing one object across iterations could be observed);
//! - if it may raise, the loop is known to run at least once (constant trip ≥ 1 and a constant
//!   true entry condition) **and** nothing observable (an effect or another op that may raise)
//!   comes before it in the body: then the error happens at the same point of the program's
//!   behaviour. Hoisting a failing op out of a loop that runs zero times would add an error.
//!
//! Loops are visited innermost first, so an op can climb out of several nested loops.

use super::PassCtx;
use super::util::{self, const_bool, const_int, defined_within, is_attached};
use pyjit_ir::{Function, Op, OpKind};

function_pass!(
    Licm,
    "licm",
    "loop-invariant code motion of pure ops (failing ops only out of loops that run)",
    run_function
);

pub fn run_function(f: &mut Function, ctx: &mut PassCtx) {
    let fn_writes = util::function_writes_memory(f);
    for lp in util::loops_innermost_first(f) {
        if is_attached(f, lp) {
            hoist_from(f, lp, fn_writes, ctx);
        }
    }
}

fn runs_at_least_once(f: &Function, lp: Op) -> bool {
    let ops = &f.op(lp).operands;
    const_int(f, ops[0]).is_some_and(|n| n >= 1) && const_bool(f, ops[1]) == Some(true)
}

fn hoist_from(f: &mut Function, lp: Op, fn_writes: bool, ctx: &mut PassCtx) {
    let body = f.op(lp).regions[0];
    let body_writes = util::region_writes_memory(f, body);
    let runs = runs_at_least_once(f, lp);
    let mut observable_before = false;
    for op in f.region_ops(body).to_vec() {
        let data = f.op(op);
        if data.kind.is_terminator() {
            break;
        }
        let invariant = data.regions.is_empty()
            && data.operands.iter().all(|&v| !defined_within(f, v, body))
            && !util::op_has_side_effects(f, op)
            && !matches!(data.kind, OpKind::Undef);
        let memory_ok = !util::reads_memory(f, op) || !body_writes;
        let fresh_ok = !data.kind.returns_fresh_object() || !fn_writes;
        let raises = util::op_may_raise(f, op);
        let raise_ok = !raises || (runs && !observable_before);
        if invariant && memory_ok && fresh_ok && raise_ok {
            if !ctx.allow() {
                observable_before |= raises;
                continue;
            }
            f.remove_op(op);
            f.insert_op_before(lp, op);
            ctx.stats.hoisted += 1;
            continue;
        }
        // This op stays; does it make later failures observable-after-something?
        let effect_free = util::is_effect_free(f, op);
        if !effect_free {
            observable_before = true;
        }
    }
}
