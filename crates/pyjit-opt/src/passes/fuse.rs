//! `fuse`: groups chains of elementwise tensor ops into `fused` ops (docs/fusion.md), so
//! native code runs each group in one pass over memory instead of materializing every
//! intermediate.
//!
//! A group is a tree of fusable tensor ops (`pyjit_runtime::ops::fused::fusable`: arithmetic,
//! comparisons, `where`/`clamp`/`maximum`, casts, transcendentals, and `sum`/`mean`/`amax`/
//! `amin` over the last dim with a constant `keepdim`, which the group runs row by row, and
//! `max`/`min` of every element, which ends a group) in one
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
//!   not a constant;
//! - after a reduction of every element (`max(x)`, `min(x)`, `amax`/`amin` over no dims),
//!   which ends its group: the group of its consumers starts anew.

use super::util::{Edits, const_of, function_writes_memory, op_has_side_effects, op_may_raise};
use super::{Pass, PassCtx};
use pyjit_ir::{Const, Function, Module, Op, OpKind, Region, Type, Value};
use std::collections::{HashMap, HashSet};

pub struct Fuse;

impl Pass for Fuse {
    fn name(&self) -> &'static str {
        "fuse"
    }

    fn description(&self) -> &'static str {
        "groups chains of elementwise tensor ops into `fused` ops (one pass over memory)"
    }

    fn run(&self, m: &mut Module, ctx: &mut PassCtx) {
        for (id, f) in m.funcs.iter_mut() {
            if ctx.is_live(id) {
                run_function(f, ctx);
            }
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
                && (!pyjit_runtime::ops::fused::row_reduction(id)
                    || reduces_last_dim(f, op)
                    || reduces_everything(f, op))
        }
        _ => false,
    }
}

/// Whether `op` reduces every element of its operand to one: `max(x)`/`min(x)`, or `amax`/
/// `amin` over a literal empty dim list, not kept. Such a reduction ends its group (its
/// result is one element, which a consumer's group would broadcast back), so it does not
/// join the group of its consumers (docs/fusion.md).
fn reduces_everything(f: &Function, op: Op) -> bool {
    let d = f.op(op);
    let OpKind::Tensor(id) = d.kind else {
        return false;
    };
    if pyjit_runtime::ops::fused::all_reduction(id) {
        return true;
    }
    let name = pyjit_runtime::schema::schema(id).name.as_str();
    let no_dims = d.operands.get(1).is_some_and(|&v| {
        f.defining_op(v).is_some_and(|l| {
            let l = f.op(l);
            matches!(l.kind, OpKind::ListNew) && l.operands.is_empty()
        })
    });
    let not_kept = d
        .operands
        .get(2)
        .is_some_and(|&v| matches!(const_of(f, v), Some(Const::Bool(false))));
    matches!(name, "amax" | "amin") && no_dims && not_kept
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
    let all = f.all_ops();
    // No group without a fusable op: skip the use map (most of the pass's time on a large
    // function without tensors).
    if !all.iter().any(|&o| is_fusable(f, o)) {
        return;
    }
    let mut users: HashMap<Value, Vec<Op>> = HashMap::new();
    for op in all {
        for &v in &f.op(op).operands {
            users.entry(v).or_default().push(op);
        }
    }
    // The fused ops are inserted and the members detached in bulk (one pass over each region
    // at the end), so a group costs its size, not the length of its region.
    let mut edits = Edits::default();
    for r in f.all_regions() {
        for group in groups(f, r, &users) {
            if group.len() >= 2 && ctx.allow() {
                ctx.stats.removed += group.len() as u64 - 1;
                rewrite(f, &group, &users, &mut edits);
            }
        }
    }
    edits.finish(f);
}

/// The groups being built in one region: a union-find over group ids, so merging a group of
/// `k` ops into another costs O(1) amortized, not `k` (a traced loop is one chain of thousands of
/// ops, all one group).
struct Groups {
    /// Union-find parent of each group id (a root is its own parent).
    parent: Vec<usize>,
    /// Per root: its first member's position in the region.
    first: Vec<usize>,
    /// Per root: the sorted positions of its members that may raise or have effects.
    loud: Vec<Vec<usize>>,
    /// Per root: operands of its members produced by another group that could not join yet.
    pending: Vec<Vec<Value>>,
}

impl Groups {
    fn find(&mut self, mut g: usize) -> usize {
        while self.parent[g] != g {
            self.parent[g] = self.parent[self.parent[g]];
            g = self.parent[g];
        }
        g
    }

    /// Merges root `g` into root `into` (which stays the root).
    fn merge(&mut self, g: usize, into: usize) {
        self.parent[g] = into;
        self.first[into] = self.first[into].min(self.first[g]);
        let mut a = std::mem::take(&mut self.loud[g]);
        let mut b = std::mem::take(&mut self.loud[into]);
        if a.len() < b.len() {
            std::mem::swap(&mut a, &mut b);
        }
        // `a` is the longer; `b`'s positions usually all come after `a`'s (the newest op).
        if a.last().is_none_or(|&l| b.first().is_none_or(|&f| f > l)) {
            a.extend(b);
        } else {
            a.extend(b);
            a.sort_unstable();
        }
        self.loud[into] = a;
        let p = std::mem::take(&mut self.pending[g]);
        self.pending[into].extend(p);
    }

    /// How many of root `g`'s loud members lie strictly between positions `lo` and `hi`.
    fn loud_between(&self, g: usize, lo: usize, hi: usize) -> usize {
        let l = &self.loud[g];
        let a = l.partition_point(|&p| p <= lo);
        let b = l.partition_point(|&p| p < hi);
        b.saturating_sub(a)
    }
}

/// The groups of region `r`, each as its members in region order (the root last), in the
/// order of their roots.
fn groups(f: &Function, r: Region, users: &HashMap<Value, Vec<Op>>) -> Vec<Vec<Op>> {
    let ops = f.region_ops(r).to_vec();
    let pos: HashMap<Op, usize> = ops.iter().enumerate().map(|(i, &o)| (o, i)).collect();
    let is_loud = |x: Op| op_may_raise(f, x) || op_has_side_effects(f, x);
    // loud_before[k]: how many of the first k ops may raise or have effects.
    let mut loud_before = Vec::with_capacity(ops.len() + 1);
    loud_before.push(0usize);
    for &x in &ops {
        let n = loud_before.last().copied().unwrap_or(0);
        loud_before.push(n + usize::from(is_loud(x)));
    }
    // Group id of each fusable op (ids are union-find nodes; `find` gives the group).
    let mut group_of: HashMap<Op, usize> = HashMap::new();
    let mut gs = Groups {
        parent: Vec::new(),
        first: Vec::new(),
        loud: Vec::new(),
        pending: Vec::new(),
    };
    for (i, &o) in ops.iter().enumerate() {
        if !is_fusable(f, o) {
            continue;
        }
        let mine = gs.parent.len();
        gs.parent.push(mine);
        gs.first.push(i);
        gs.loud.push(if is_loud(o) { vec![i] } else { Vec::new() });
        gs.pending.push(Vec::new());
        group_of.insert(o, mine);
        // Merge producer groups until none can join (a value used twice inside the group, as
        // in `where(x > 0, x, 0.5)`, joins once both of its users are in). Joining only gets
        // easier as the group grows, so the result does not depend on the order of tries.
        let mut candidates: Vec<Value> = f.op(o).operands.clone();
        let mut changed = true;
        while changed {
            changed = false;
            let mut kept = Vec::new();
            let mut k = 0;
            while k < candidates.len() {
                let v = candidates[k];
                k += 1;
                let Some(p) = f.defining_op(v) else { continue };
                let Some(&pg) = group_of.get(&p) else {
                    continue;
                };
                if reduces_everything(f, p) {
                    continue;
                }
                let g = gs.find(pg);
                if g == mine {
                    continue;
                }
                // Every use of the value is inside the merged group: nothing else needs it
                // materialized.
                let all_inside = users.get(&v).is_some_and(|us| {
                    us.iter().all(|u| {
                        group_of.get(u).is_some_and(|&ug| {
                            let x = gs.find(ug);
                            x == mine || x == g
                        })
                    })
                });
                // Every op between the producer group's first member and `o` that does not
                // belong to either group must be quiet: no error, no effect to reorder with.
                let quiet = all_inside && {
                    let first = gs.first[g];
                    let loud = loud_before[i] - loud_before[(first + 1).min(i)];
                    let excused = gs.loud_between(g, first, i) + gs.loud_between(mine, first, i);
                    loud == excused
                };
                if quiet {
                    let p = std::mem::take(&mut gs.pending[g]);
                    candidates.extend(p);
                    gs.merge(g, mine);
                    changed = true;
                } else {
                    kept.push(v);
                }
            }
            candidates = kept;
        }
        gs.pending[mine] = candidates;
    }
    // Members in region order, grouped; groups in the order of their roots (last members).
    let mut by_root: HashMap<usize, Vec<Op>> = HashMap::new();
    for &o in &ops {
        if let Some(&g) = group_of.get(&o) {
            let g = gs.find(g);
            by_root.entry(g).or_default().push(o);
        }
    }
    let mut out: Vec<Vec<Op>> = by_root.into_values().filter(|g| g.len() >= 2).collect();
    out.sort_by_key(|g| g.last().map(|m| pos[m]));
    out
}

/// Replaces the group's ops by one `fused` op at the root's place (inserted and detached
/// through `edits`; `users` gives the uses of the root's result).
fn rewrite(f: &mut Function, group: &[Op], users: &HashMap<Value, Vec<Op>>, edits: &mut Edits) {
    let root = *group.last().expect("a group has a root");
    let root_res = f.op(root).results[0];
    let inside: HashSet<Value> = group
        .iter()
        .flat_map(|&m| f.op(m).results.clone())
        .collect();
    // Inputs in order of first use; constants are copied into the body instead.
    let mut inputs: Vec<Value> = Vec::new();
    let mut seen: HashSet<Value> = HashSet::new();
    for &m in group {
        for &v in &f.op(m).operands {
            if !inside.contains(&v) && const_of(f, v).is_none() && seen.insert(v) {
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
    edits.insert_before(f, root, fused);
    let out = f.result(fused);
    for &u in users.get(&root_res).map(Vec::as_slice).unwrap_or(&[]) {
        for v in &mut f.ops[u].operands {
            if *v == root_res {
                *v = out;
            }
        }
    }
    let mut map: HashMap<Value, Value> = inputs.iter().copied().zip(params).collect();
    for &m in group {
        f.detach_op(m);
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
