//! Dead-code elimination.
//!
//! Deletes, until nothing changes:
//! - ops whose results nobody reads and that are *effect-free*: no side effect, cannot raise
//!   (refined with constant operands: `a // 2` cannot, `a // b` can), and, for `if`/`loop`, the
//!   same for every op of their regions (a loop also needs a constant trip count, so that an
//!   endless `while` is never deleted);
//! - `if` results nobody reads (the slot disappears from both `yield`s);
//! - loop-carried values nobody reads: the loop's result is unused and the body parameter only
//!   feeds, through effect-free ops, the same slot of the body's `yield`.
//!
//! Guarantee: stricter than TorchScript's DCE, an op that may raise is never deleted, so every
//! error the program raised is still raised, with the same message and span.

use super::PassCtx;
use super::util::{self, WalkExt, is_effect_free, remove_region_param, remove_result};
use pyjit_ir::{Function, Op, OpKind, Uses, Value};

function_pass!(
    Dce,
    "dce",
    "dead-code elimination: unused effect-free ops, if results, loop-carried values",
    run_function
);

pub fn run_function(f: &mut Function, ctx: &mut PassCtx) {
    // Each round only deletes, so it terminates; the bound is a safety net.
    for _ in 0..64 {
        if !round(f, ctx) {
            break;
        }
    }
}

fn round(f: &mut Function, ctx: &mut PassCtx) -> bool {
    let mut changed = false;
    // Built once per round and kept exact by every deletion below (they all go through it).
    let mut uses = Uses::build(f);
    // Post-order-ish: later ops first, so a chain of dead ops dies in one round.
    let ops = f.all_ops();
    for &op in ops.iter().rev() {
        // In reverse pre-order an op's descendants come before it and its ancestors after, so
        // what this round removed never contains an op still to visit: the op's own link
        // says whether it is attached (no walk up its ancestors).
        if f.op(op).parent.is_none() {
            continue;
        }
        let data = f.op(op);
        if matches!(data.kind, OpKind::Yield | OpKind::Return) {
            continue;
        }
        let all_unused = data.results.iter().all(|&r| uses.is_unused(r));
        if all_unused && is_effect_free(f, op) {
            if !ctx.allow() {
                continue;
            }
            let n = f.op_size(op) as u64;
            uses.detach(f, op);
            // Detached now, dropped from its region's list once at the end of the round.
            f.detach_op(op);
            ctx.stats.removed += n;
            changed = true;
            continue;
        }
        match data.kind {
            OpKind::If => changed |= prune_if_results(f, op, &mut uses, ctx),
            OpKind::Loop => changed |= prune_loop_slots(f, op, &mut uses, ctx),
            _ => {}
        }
    }
    debug_assert_eq!(uses.check(f), Ok(()));
    f.flush_detached();
    changed
}

/// Drops `if` results nobody reads.
fn prune_if_results(f: &mut Function, op: Op, uses: &mut Uses, ctx: &mut PassCtx) -> bool {
    let mut changed = false;
    let n = f.results(op).len();
    for k in (0..n).rev() {
        let r = f.results(op)[k];
        if !uses.is_unused(r) || !ctx.allow() {
            continue;
        }
        for region in f.op(op).regions.clone() {
            if let Some(t) = f.terminator(region)
                && f.op(t).kind == OpKind::Yield
            {
                uses.remove_operand(f, t, k);
            }
        }
        remove_result(f, op, k);
        ctx.stats.removed += 1;
        changed = true;
    }
    changed
}

/// Drops loop-carried slots whose value nobody reads.
fn prune_loop_slots(f: &mut Function, op: Op, uses: &mut Uses, ctx: &mut PassCtx) -> bool {
    let mut changed = false;
    let body = f.op(op).regions[0];
    let Some(term) = f.terminator(body) else {
        return false;
    };
    if f.op(term).kind != OpKind::Yield {
        return false;
    }
    let n = f.results(op).len();
    for k in (0..n).rev() {
        let r = f.results(op)[k];
        if !uses.is_unused(r) {
            continue;
        }
        let param = f.region_params(body)[k + 1];
        if !slot_is_dead(f, uses, term, k + 1, param) || !ctx.allow() {
            continue;
        }
        // Operands: max_trip, cond, carried…; yield: cond, carried….
        uses.remove_operand(f, op, k + 2);
        uses.remove_operand(f, term, k + 1);
        remove_result(f, op, k);
        remove_region_param(f, body, k + 1);
        ctx.stats.removed += 1;
        changed = true;
    }
    changed
}

/// Whether `param` only flows, through effect-free ops, into position `slot` of the yield.
fn slot_is_dead(f: &Function, uses: &Uses, term: Op, slot: usize, param: Value) -> bool {
    let mut work = vec![param];
    let mut seen = std::collections::HashSet::new();
    while let Some(v) = work.pop() {
        if !seen.insert(v) {
            continue;
        }
        for &(user, _) in uses.users(v) {
            if user == term {
                let positions: Vec<usize> = f
                    .op(term)
                    .operands
                    .iter()
                    .enumerate()
                    .filter(|(_, x)| **x == v)
                    .map(|(i, _)| i)
                    .collect();
                if positions != [slot] {
                    return false;
                }
            } else if f.op(user).regions.is_empty()
                && !f.op(user).kind.is_terminator()
                && util::is_effect_free(f, user)
            {
                work.extend(f.results(user).iter().copied());
            } else {
                return false;
            }
        }
    }
    true
}
