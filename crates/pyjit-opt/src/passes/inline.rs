//! Inlining of calls to small, non-recursive functions.
//!
//! A `call @g(args)` is replaced by a copy of `g`'s body (parameters mapped to the arguments,
//! `return v` becoming the call's result) when:
//! - `g` is not recursive: it cannot reach itself through the call graph (direct or mutual
//!   recursion is never inlined, so inlining always terminates);
//! - `g`'s body has at most `inline_max_size` ops (the size heuristic);
//! - `g`'s body ends in `return` (a body that always raises stays a call).
//!
//! Guarantee: the callee's ops keep their spans, so an error raised inside inlined code points
//! at the same source line, and each copied op records the call it was inlined through
//! (`OpData::inlined_at`, `Function::inline_sites`), so that a traceback keeps the frame. What
//! changes is only the recursion-depth count (one call less).

use super::util::WalkExt;
use super::{Pass, PassCtx};
use pyjit_ir::{EntityRef, FuncId, Function, InlineSite, Module, Op, OpKind, Uses, Value};
use std::collections::{HashMap, HashSet};

pub(crate) struct Inline;

impl Pass for Inline {
    fn name(&self) -> &'static str {
        "inline"
    }
    fn description(&self) -> &'static str {
        "inline calls to small non-recursive functions"
    }
    fn run(&self, m: &mut Module, ctx: &mut PassCtx) {
        let recursive = recursive_functions(m);
        // Inline callees' own calls first: process in an order where callees come first when
        // possible (a few rounds reach nested small helpers).
        for _ in 0..4 {
            let mut changed = false;
            let ids: Vec<FuncId> = m.funcs.keys().collect();
            for id in ids {
                if !ctx.is_live(id) {
                    continue;
                }
                changed |= inline_in(m, id, &recursive, ctx);
            }
            if !changed {
                break;
            }
        }
    }
}

fn callees(f: &Function) -> Vec<FuncId> {
    let mut out = Vec::new();
    f.walk(&mut |op| {
        if let OpKind::Call(c) = f.op(op).kind {
            out.push(c);
        }
    });
    out
}

/// Functions that can reach themselves through calls.
pub(crate) fn recursive_functions(m: &Module) -> HashSet<FuncId> {
    let graph: HashMap<FuncId, Vec<FuncId>> =
        m.funcs.iter().map(|(id, f)| (id, callees(f))).collect();
    let mut out = HashSet::new();
    for &start in graph.keys() {
        let mut stack: Vec<FuncId> = graph[&start].clone();
        let mut seen = HashSet::new();
        while let Some(g) = stack.pop() {
            if g == start {
                out.insert(start);
                break;
            }
            if seen.insert(g)
                && let Some(next) = graph.get(&g)
            {
                stack.extend(next);
            }
        }
    }
    out
}

fn inline_in(m: &mut Module, id: FuncId, recursive: &HashSet<FuncId>, ctx: &mut PassCtx) -> bool {
    let mut changed = false;
    // Built at the first inlined call and kept exact by every splice (all go through it), so
    // replacing a call's result costs its uses, not a walk of the caller per call.
    let mut uses: Option<Uses> = None;
    let calls: Vec<Op> = m
        .func(id)
        .all_ops()
        .into_iter()
        .filter(|&op| matches!(m.func(id).op(op).kind, OpKind::Call(_)))
        .collect();
    for call in calls {
        let OpKind::Call(callee) = m.func(id).op(call).kind else {
            continue;
        };
        if callee == id || recursive.contains(&callee) || callee.index() >= m.funcs.len() {
            continue;
        }
        let g = m.func(callee);
        let Some(ret) = g.terminator(g.body) else {
            continue;
        };
        if g.op(ret).kind != OpKind::Return || g.region_size(g.body) > ctx.options.inline_max_size {
            continue;
        }
        let rv = g.op(ret).operands[0];
        if !ctx.allow() {
            continue;
        }
        let g = m.func(callee).clone();
        let f = m.func_mut(id);
        let uses = uses.get_or_insert_with(|| Uses::build(f));
        let args = f.op(call).operands.clone();
        let mut map: HashMap<Value, Value> = g.params().iter().copied().zip(args).collect();
        let body_ops = g.region_ops(g.body).to_vec();
        // The call's frame, then the callee's own inlined calls renumbered under it.
        let site = f.inline_sites.len() as u32;
        f.inline_sites.push(InlineSite {
            callee: g.name.clone(),
            call_span: f.op(call).span,
            parent: f.op(call).inlined_at,
        });
        let base = f.inline_sites.len() as u32;
        for s in &g.inline_sites {
            f.inline_sites.push(InlineSite {
                callee: s.callee.clone(),
                call_span: s.call_span,
                parent: Some(s.parent.map_or(site, |p| base + p)),
            });
        }
        for &op in &body_ops[..body_ops.len() - 1] {
            let new = f.copy_op_from(&g, op, &mut map);
            // The copy has the original's shape: pair their ops in pre-order.
            for (old, copy) in preorder(&g, op).into_iter().zip(preorder(f, new)) {
                f.op_mut(copy).inlined_at = Some(g.op(old).inlined_at.map_or(site, |i| base + i));
            }
            uses.insert_op_before(f, call, new);
        }
        let result = *map.get(&rv).unwrap_or(&rv);
        let call_result = f.result(call);
        uses.replace_uses(f, call_result, result);
        uses.remove_op(f, call);
        ctx.stats.inlined += 1;
        changed = true;
    }
    if let Some(uses) = uses {
        debug_assert_eq!(uses.check(m.func(id)), Ok(()));
    }
    changed
}

/// `op` and every op nested in its regions, in pre-order.
fn preorder(f: &Function, op: Op) -> Vec<Op> {
    let mut out = vec![op];
    for &r in &f.op(op).regions {
        f.walk_region(r, &mut |o| out.push(o));
    }
    out
}
