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
use pyjit_ir::{Function, Op, OpKind, SecondaryMap, Value};

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
    let mut uses = f.use_counts();
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
        let all_unused = data.results.iter().all(|&r| uses[r] == 0);
        if all_unused && is_effect_free(f, op) {
            if !ctx.allow() {
                continue;
            }
            let n = f.op_size(op) as u64;
            let mut dec = Vec::new();
            f.walk_region_from_op(op, &mut |o| dec.extend(f.op(o).operands.iter().copied()));
            for v in dec {
                uses[v] = uses[v].saturating_sub(1);
            }
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
    f.flush_detached();
    changed
}

/// Drops `if` results nobody reads.
fn prune_if_results(
    f: &mut Function,
    op: Op,
    uses: &mut SecondaryMap<Value, u32>,
    ctx: &mut PassCtx,
) -> bool {
    let no_condition = |_: &Function, _: usize| true;
    prune_results(f, op, uses, ctx, no_condition, |f, k| {
        let mut dropped = Vec::new();
        for region in f.op(op).regions.clone() {
            if let Some(t) = f.terminator(region)
                && f.op(t).kind == OpKind::Yield
            {
                dropped.push(f.op_mut(t).operands.remove(k));
            }
        }
        dropped
    })
}

/// Drops loop-carried slots whose value nobody reads.
fn prune_loop_slots(
    f: &mut Function,
    op: Op,
    uses: &mut SecondaryMap<Value, u32>,
    ctx: &mut PassCtx,
) -> bool {
    let body = f.op(op).regions[0];
    let Some(term) = f.terminator(body) else {
        return false;
    };
    if f.op(term).kind != OpKind::Yield {
        return false;
    }
    let dead = |f: &Function, k: usize| slot_is_dead(f, term, k + 1, f.region_params(body)[k + 1]);
    prune_results(f, op, uses, ctx, dead, |f, k| {
        // Operands: max_trip, cond, carried…; yield: cond, carried….
        let init = f.op_mut(op).operands.remove(k + 2);
        let y = f.op_mut(term).operands.remove(k + 1);
        remove_region_param(f, body, k + 1);
        vec![init, y]
    })
}

/// Removes, last first, each result `k` of `op` that nobody reads, when `removable(f, k)` and
/// the budget allow: `drop_slot` removes what fed it and returns the values it no longer uses.
fn prune_results(
    f: &mut Function,
    op: Op,
    uses: &mut SecondaryMap<Value, u32>,
    ctx: &mut PassCtx,
    removable: impl Fn(&Function, usize) -> bool,
    mut drop_slot: impl FnMut(&mut Function, usize) -> Vec<Value>,
) -> bool {
    let mut changed = false;
    let n = f.results(op).len();
    for k in (0..n).rev() {
        let r = f.results(op)[k];
        if uses[r] != 0 || !removable(f, k) || !ctx.allow() {
            continue;
        }
        for v in drop_slot(f, k) {
            uses[v] = uses[v].saturating_sub(1);
        }
        remove_result(f, op, k);
        ctx.stats.removed += 1;
        changed = true;
    }
    changed
}

/// Whether `param` only flows, through effect-free ops, into position `slot` of the yield.
fn slot_is_dead(f: &Function, term: Op, slot: usize, param: Value) -> bool {
    // Users of each value, computed once for this question.
    let mut users: std::collections::HashMap<Value, Vec<Op>> = std::collections::HashMap::new();
    for op in f.all_ops() {
        for &v in &f.op(op).operands {
            users.entry(v).or_default().push(op);
        }
    }
    let mut work = vec![param];
    let mut seen = std::collections::HashSet::new();
    while let Some(v) = work.pop() {
        if !seen.insert(v) {
            continue;
        }
        for &user in users.get(&v).map(Vec::as_slice).unwrap_or(&[]) {
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
