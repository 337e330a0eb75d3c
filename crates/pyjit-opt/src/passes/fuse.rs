//! `fuse`: groups chains of elementwise tensor ops into `fused` ops (docs/fusion.md), so
//! native code runs each group in one pass over memory instead of materializing every
//! intermediate.
//!
//! A group is a tree of fusable tensor ops (`pyjit_runtime::ops::fused::fusable`: arithmetic,
//! comparisons, `where`/`clamp`/`maximum`, casts, transcendentals, and `sum`/`mean`/`amax`/
//! `amin` over the last dim with a constant `keepdim`, which the group runs row by row) in one
//! region: an op joins
//! the group of its consumers when every use of its result is inside the group. Scalars and other
//! values become operands of the group; constants are copied into its body. The group takes
//! the place of its last op (the root), whose result it gives.
//!
//! The pass must not change what a program does, so it does not fire:
//! - in a function that writes memory (in-place tensor ops, list writes, calls): a group reads
//!   its inputs at the root's position, and an alias-returning op (`x.to(x.dtype)`,
//!   `positive`) would give a fresh tensor where unfused code gives a view;
//! - for an intermediate used outside the group (by another op, a nested region, a `yield`):
//!   it is materialized anyway, so the group stops there (recomputing it inside the group
//!   would read memory again and run its math twice);
//! - across an op that may raise or has side effects: moving the group's ops to the root
//!   would reorder their errors with that op's error or effect;
//! - for a single op (nothing to fuse);
//! - for a reduction over another dim than the last, or whose dim, `keepdim` or operand rank is
//!   not a constant.

use super::util::{const_of, function_writes_memory, op_has_side_effects, op_may_raise};
use super::{Pass, PassCtx};
use pyjit_ir::{Const, Function, Module, Op, OpKind, Region, Type, Value};
use std::collections::HashMap;

pub struct Fuse;

impl Pass for Fuse {
    fn name(&self) -> &'static str {
        "fuse"
    }

    fn description(&self) -> &'static str {
        "groups chains of elementwise tensor ops into `fused` ops (one pass over memory)"
    }

    fn run(&self, m: &mut Module, ctx: &mut PassCtx) {
        for f in m.funcs.values_mut() {
            run_function(f, ctx);
        }
    }
}

fn is_fusable(f: &Function, op: Op) -> bool {
    let d = f.op(op);
    match d.kind {
        OpKind::Tensor(id) => {
            pyjit_runtime::ops::fused::fusable(id)
                && d.results.len() == 1
                && matches!(f.value_type(d.results[0]), Type::Tensor(_))
                && d.regions.is_empty()
                && (!pyjit_runtime::ops::fused::row_reduction(id) || reduces_last_dim(f, op))
        }
        _ => false,
    }
}

/// Whether reduction `op` (`sum`/`mean`/`amax`/`amin` over dims) reduces exactly the last dim
/// of its operand, of known rank, with a constant `keepdim`: the reductions a group runs row
/// by row (docs/fusion.md).
fn reduces_last_dim(f: &Function, op: Op) -> bool {
    let d = f.op(op);
    let rank = match d.operands.first().map(|&v| f.value_type(v)) {
        Some(Type::Tensor(t)) => t.rank,
        _ => None,
    };
    let dim = d.operands.get(1).and_then(|&v| match const_of(f, v) {
        Some(Const::Int(i)) => Some(*i),
        _ => {
            let def = f.defining_op(v)?;
            let l = f.op(def);
            match (&l.kind, l.operands.as_slice()) {
                (OpKind::ListNew, [e]) => match const_of(f, *e) {
                    Some(Const::Int(i)) => Some(*i),
                    _ => None,
                },
                _ => None,
            }
        }
    });
    let keepdim = d
        .operands
        .get(2)
        .is_some_and(|&v| matches!(const_of(f, v), Some(Const::Bool(_))));
    match (rank, dim) {
        (Some(r), Some(i)) => r >= 1 && (i == -1 || i == i64::from(r) - 1) && keepdim,
        _ => false,
    }
}

fn run_function(f: &mut Function, ctx: &mut PassCtx) {
    if function_writes_memory(f) {
        return;
    }
    let mut users: HashMap<Value, Vec<Op>> = HashMap::new();
    for op in f.all_ops() {
        for &v in &f.op(op).operands {
            users.entry(v).or_default().push(op);
        }
    }
    for r in f.all_regions() {
        for group in groups(f, r, &users) {
            if group.len() >= 2 && ctx.allow() {
                ctx.stats.removed += group.len() as u64 - 1;
                rewrite(f, &group);
            }
        }
    }
}

/// The groups of region `r`, each as its members in region order (the root last).
fn groups(f: &Function, r: Region, users: &HashMap<Value, Vec<Op>>) -> Vec<Vec<Op>> {
    let ops = f.region_ops(r).to_vec();
    let pos: HashMap<Op, usize> = ops.iter().enumerate().map(|(i, &o)| (o, i)).collect();
    // Group id of each fusable op, and each group's members.
    let mut group_of: HashMap<Op, usize> = HashMap::new();
    let mut members: Vec<Vec<Op>> = Vec::new();
    for (i, &o) in ops.iter().enumerate() {
        if !is_fusable(f, o) {
            continue;
        }
        let mut mine = vec![o];
        // Merge producer groups until none can join (a value used twice inside the group, as
        // in `where(x > 0, x, 0.5)`, joins once both of its users are in).
        let mut changed = true;
        while changed {
            changed = false;
            let operands: Vec<Value> = mine
                .iter()
                .flat_map(|&m| f.op(m).operands.clone())
                .collect();
            for v in operands {
                let Some(p) = f.defining_op(v) else { continue };
                let Some(&g) = group_of.get(&p) else { continue };
                if members[g].is_empty() || mine.contains(&p) {
                    continue;
                }
                // Every use of the value is inside the merged group: nothing else needs it
                // materialized.
                let all_inside = users.get(&v).is_some_and(|us| {
                    us.iter()
                        .all(|u| mine.contains(u) || members[g].contains(u))
                });
                if !all_inside {
                    continue;
                }
                // Every op between the producer group's first member and `o` that does not
                // belong to either group must be quiet: no error, no effect to reorder with.
                let first = members[g].iter().map(|m| pos[m]).min().unwrap_or(i);
                let quiet = (first + 1..i).all(|k| {
                    let x = ops[k];
                    members[g].contains(&x)
                        || mine.contains(&x)
                        || (!op_may_raise(f, x) && !op_has_side_effects(f, x))
                });
                if quiet {
                    let taken = std::mem::take(&mut members[g]);
                    mine.extend(taken);
                    changed = true;
                }
            }
        }
        mine.sort_by_key(|m| pos[m]);
        let id = members.len();
        for &m in &mine {
            group_of.insert(m, id);
        }
        members.push(mine);
    }
    members.into_iter().filter(|g| g.len() >= 2).collect()
}

/// Replaces the group's ops by one `fused` op at the root's place.
fn rewrite(f: &mut Function, group: &[Op]) {
    let root = *group.last().expect("a group has a root");
    let root_res = f.op(root).results[0];
    let inside: Vec<Value> = group
        .iter()
        .flat_map(|&m| f.op(m).results.clone())
        .collect();
    // Inputs in order of first use; constants are copied into the body instead.
    let mut inputs: Vec<Value> = Vec::new();
    for &m in group {
        for &v in &f.op(m).operands {
            if !inside.contains(&v) && const_of(f, v).is_none() && !inputs.contains(&v) {
                inputs.push(v);
            }
        }
    }
    let types: Vec<Type> = inputs.iter().map(|&v| f.value_type(v).clone()).collect();
    let body = f.new_region(&types);
    let params = f.region_params(body).to_vec();
    let span = f.op(root).span;
    let inlined_at = f.op(root).inlined_at;
    let ty = f.value_type(root_res).clone();
    let fused = f.create_op(OpKind::Fused, &inputs, &[ty], &[body], span);
    f.op_mut(fused).inlined_at = inlined_at;
    f.insert_op_before(root, fused);
    let out = f.result(fused);
    for op in f.all_ops() {
        if op == fused {
            continue;
        }
        for v in &mut f.ops[op].operands {
            if *v == root_res {
                *v = out;
            }
        }
    }
    let mut map: HashMap<Value, Value> = inputs.iter().copied().zip(params).collect();
    for &m in group {
        f.remove_op(m);
        let operands = f.op(m).operands.clone();
        for (j, v) in operands.into_iter().enumerate() {
            let nv = match map.get(&v) {
                Some(&nv) => nv,
                None => match const_of(f, v).cloned() {
                    Some(c) => {
                        let cspan = f.defining_op(v).map(|d| f.op(d).span).unwrap_or(span);
                        let cop = f.create_op(OpKind::Const(c.clone()), &[], &[c.ty()], &[], cspan);
                        f.append_op(body, cop);
                        let nv = f.result(cop);
                        map.insert(v, nv);
                        nv
                    }
                    None => v,
                },
            };
            f.op_mut(m).operands[j] = nv;
        }
        f.append_op(body, m);
    }
    let y = f.create_op(OpKind::Yield, &[root_res], &[], &[], span);
    f.append_op(body, y);
}
