//! Full unrolling of small loops with a constant trip count.
//!
//! A `loop(N, true, inits…)` whose body yields a constant `true` as its continue condition
//! (a `for` loop over `range(N)` without `break`) is replaced by N copies of its body, the
//! iteration index becoming a constant and each copy's carried values feeding the next, when
//! (TorchScript's limits as the starting point) the body has at most `unroll_max_body` ops (32),
//! N is at most `unroll_max_trip` (64), and N × body size is at most `unroll_max_total`.
//!
//! Guarantee: the copies run the same ops in the same order as the loop did; loops whose body
//! can leave early (a computed condition) or raise in its terminator are left alone. Follow it
//! with `constfold`/`simplify`/`cse` to exploit the constant indices.

use super::PassCtx;
use super::util::{self, WalkExt, const_bool, const_int, is_attached};
use pyjit_ir::{Const, Function, Op, OpKind, Value};
use std::collections::HashMap;

function_pass!(
    Unroll,
    "unroll",
    "full unrolling of small constant-trip loops (TorchScript limits)",
    run_function
);

pub fn run_function(f: &mut Function, ctx: &mut PassCtx) {
    // Innermost first: an unrolled inner loop makes the outer body bigger, which the size
    // limit then accounts for. The loops' results are replaced once at the end (`subst`); a
    // body is brought up to date just before it is copied.
    let mut subst: HashMap<Value, Value> = HashMap::new();
    for lp in util::loops_innermost_first(f) {
        if is_attached(f, lp) {
            try_unroll(f, lp, ctx, &mut subst);
        }
    }
    f.flush_detached();
    util::apply_substitution(f, &subst);
}

fn try_unroll(
    f: &mut Function,
    lp: Op,
    ctx: &mut PassCtx,
    subst: &mut HashMap<Value, Value>,
) -> bool {
    for v in &mut f.ops[lp].operands {
        *v = util::resolve(subst, *v);
    }
    let data = f.op(lp).clone();
    let Some(n) = const_int(f, data.operands[0]) else {
        return false;
    };
    if const_bool(f, data.operands[1]) != Some(true) {
        return false;
    }
    let body = data.regions[0];
    let Some(term) = f.terminator(body) else {
        return false;
    };
    if f.op(term).kind != OpKind::Yield || const_bool(f, f.op(term).operands[0]) != Some(true) {
        return false;
    }
    let size = f.region_size(body) as u64 - 1;
    let o = &ctx.options;
    let n = n.max(0) as u64;
    if size > o.unroll_max_body as u64 || n > o.unroll_max_trip || n * size > o.unroll_max_total {
        return false;
    }
    if !ctx.allow() {
        return false;
    }
    if !subst.is_empty() {
        let mut inside = Vec::new();
        f.walk_region(body, &mut |op| inside.push(op));
        for op in inside {
            for v in &mut f.ops[op].operands {
                *v = util::resolve(subst, *v);
            }
        }
    }
    let params = f.region_params(body).to_vec();
    let mut carried: Vec<Value> = data.operands[2..].to_vec();
    let ops = f.region_ops(body).to_vec();
    // The copies go in just before the loop, all at once (inserting them one by one costs the
    // length of the region each).
    let mut copies: Vec<Op> = Vec::new();
    for i in 0..n {
        let ty = Const::Int(i as i64).ty();
        let k = f.create_op(
            OpKind::Const(Const::Int(i as i64)),
            &[],
            &[ty],
            &[],
            data.span,
        );
        copies.push(k);
        let idx = f.result(k);
        let mut map: HashMap<Value, Value> = HashMap::new();
        map.insert(params[0], idx);
        for (p, &c) in params[1..].iter().zip(&carried) {
            map.insert(*p, c);
        }
        for &op in &ops[..ops.len() - 1] {
            copies.push(f.copy_op_within(op, &mut map));
        }
        carried = f.op(term).operands[1..]
            .iter()
            .map(|v| *map.get(v).unwrap_or(v))
            .collect();
    }
    if let Some(parent) = f.op(lp).parent {
        let at = f.position(lp).unwrap_or(0);
        for &c in &copies {
            f.ops[c].parent = Some(parent);
        }
        f.regions[parent].ops.splice(at..at, copies);
    }
    for (&r, &c) in data.results.iter().zip(&carried) {
        subst.insert(r, c);
    }
    // Dropped from its region's list now (one pass over that region, as `remove_op`): an outer
    // loop copies the list of the region this one was in.
    f.detach_op(lp);
    f.flush_detached();
    ctx.stats.unrolled += 1;
    true
}
