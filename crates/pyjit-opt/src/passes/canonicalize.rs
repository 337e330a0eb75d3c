//! Canonicalization: one spelling per computation, so that CSE and the peepholes see equal
//! things as equal.
//!
//! - **Constant pooling** (TorchScript's `ConstantPooling`): every `const` moves to the start of
//!   the function body, and equal constants (same value bit for bit and same type) are merged.
//!   Constants cannot fail and have no effects, so moving them is always safe.
//! - **Constants to the right** of commutative ops (`int.add mul and or xor eq ne`,
//!   `float.add mul eq ne`, `bool.and or xor eq ne`), and of ordered comparisons by mirroring
//!   them (`3 < x` → `x > 3`).
//! - **Negated `if` conditions**: `if not c { A } else { B }` → `if c { B } else { A }`.
//! - **Negated integer and bool comparisons**: `not (a < b)` → `a >= b` (never for floats:
//!   with NaN, `not (a < b)` is not `a >= b`).
//!
//! Guarantee: only reorders or respells pure ops; every value keeps its type and its value.

use super::PassCtx;
use super::util;
use pyjit_ir::{BoolBinOp, CmpOp, Const, FloatBinOp, Function, IntBinOp, Op, OpKind, Type, Value};
use std::collections::HashMap;

function_pass!(
    Canonicalize,
    "canonicalize",
    "constant pooling, constants to the right, negations folded into ifs and comparisons",
    run_function
);

pub fn run_function(f: &mut Function, ctx: &mut PassCtx) {
    pool_constants(f, ctx);
    let mut attached = util::AttachCheck::new(f);
    for op in f.all_ops() {
        if !attached.check(f, op) {
            continue;
        }
        canonicalize_op(f, op, ctx);
    }
}

fn pool_constants(f: &mut Function, ctx: &mut PassCtx) {
    let body = f.body;
    let mut pool: HashMap<(Const, Type), Value> = HashMap::new();
    // Constants already at the head of the body stay where they are, in order: the leading run
    // of `const` ops, which a pre-order walk visits first. A constant there that cannot be
    // pooled (the budget ran out) ends the head.
    let leading = f
        .region_ops(body)
        .iter()
        .take_while(|&&op| matches!(f.op(op).kind, OpKind::Const(_)))
        .count();
    let mut run_ok = true;
    // The new head of the body, in order: kept leading constants, then hoisted ones.
    let mut head: Vec<Op> = Vec::new();
    let mut in_head = pyjit_ir::SecondaryMap::<Op, bool>::with_capacity(f.ops.len());
    let mut subst = HashMap::new();
    // Removals and moves are batched (each `remove_op`/`insert_op` costs the region's length,
    // quadratic in a long body): ops are detached now and the region lists rebuilt once.
    for (i, op) in f.all_ops().into_iter().enumerate() {
        let OpKind::Const(c) = f.op(op).kind.clone() else {
            continue;
        };
        let r = f.result(op);
        let key = (c, f.value_type(r).clone());
        let at_head = i < leading && run_ok;
        if let Some(&prev) = pool.get(&key) {
            if !ctx.allow() {
                run_ok &= i >= leading;
                continue;
            }
            subst.insert(r, prev);
            f.detach_op(op);
            ctx.stats.removed += 1;
            continue;
        }
        if at_head {
            pool.insert(key, r);
            head.push(op);
            in_head[op] = true;
            continue;
        }
        if !ctx.allow() {
            continue;
        }
        f.detach_op(op);
        head.push(op);
        in_head[op] = true;
        pool.insert(key, r);
        ctx.stats.hoisted += 1;
    }
    f.flush_detached();
    let rest: Vec<Op> = f.regions[body]
        .ops
        .iter()
        .copied()
        .filter(|&op| !in_head[op])
        .collect();
    for &op in &head {
        f.ops[op].parent = Some(body);
    }
    head.extend(rest);
    f.regions[body].ops = head;
    util::apply_substitution(f, &subst);
}

fn commutative(k: &OpKind) -> bool {
    match k {
        OpKind::IntBin(b) => matches!(
            b,
            IntBinOp::Add | IntBinOp::Mul | IntBinOp::BitAnd | IntBinOp::BitOr | IntBinOp::BitXor
        ),
        OpKind::FloatBin(b) => matches!(b, FloatBinOp::Add | FloatBinOp::Mul),
        OpKind::BoolBin(b) => matches!(b, BoolBinOp::And | BoolBinOp::Or | BoolBinOp::Xor),
        OpKind::IntCmp(c) | OpKind::FloatCmp(c) | OpKind::BoolCmp(c) => {
            matches!(c, CmpOp::Eq | CmpOp::Ne)
        }
        _ => false,
    }
}

fn mirror(c: CmpOp) -> CmpOp {
    match c {
        CmpOp::Lt => CmpOp::Gt,
        CmpOp::Gt => CmpOp::Lt,
        CmpOp::Le => CmpOp::Ge,
        CmpOp::Ge => CmpOp::Le,
        other => other,
    }
}

fn negate(c: CmpOp) -> CmpOp {
    match c {
        CmpOp::Eq => CmpOp::Ne,
        CmpOp::Ne => CmpOp::Eq,
        CmpOp::Lt => CmpOp::Ge,
        CmpOp::Ge => CmpOp::Lt,
        CmpOp::Le => CmpOp::Gt,
        CmpOp::Gt => CmpOp::Le,
    }
}

fn with_cmp(k: &OpKind, c: CmpOp) -> OpKind {
    match k {
        OpKind::IntCmp(_) => OpKind::IntCmp(c),
        OpKind::FloatCmp(_) => OpKind::FloatCmp(c),
        OpKind::BoolCmp(_) => OpKind::BoolCmp(c),
        other => other.clone(),
    }
}

fn canonicalize_op(f: &mut Function, op: Op, ctx: &mut PassCtx) {
    let data = f.op(op).clone();
    let is_const = |v: Value| util::const_of(f, v).is_some();
    match &data.kind {
        k if data.operands.len() == 2
            && is_const(data.operands[0])
            && !is_const(data.operands[1]) =>
        {
            let new_kind = if commutative(k) {
                k.clone()
            } else {
                match k {
                    OpKind::IntCmp(c) | OpKind::FloatCmp(c) | OpKind::BoolCmp(c) => {
                        with_cmp(k, mirror(*c))
                    }
                    _ => return,
                }
            };
            if !ctx.allow() {
                return;
            }
            let d = f.op_mut(op);
            d.kind = new_kind;
            d.operands.swap(0, 1);
            ctx.stats.simplified += 1;
        }
        OpKind::If => {
            let Some(def) = f.defining_op(data.operands[0]) else {
                return;
            };
            if f.op(def).kind != OpKind::Not || !ctx.allow() {
                return;
            }
            let inner = f.op(def).operands[0];
            let d = f.op_mut(op);
            d.operands[0] = inner;
            d.regions.swap(0, 1);
            ctx.stats.simplified += 1;
        }
        OpKind::Not => {
            let Some(def) = f.defining_op(data.operands[0]) else {
                return;
            };
            let dk = f.op(def).kind.clone();
            let c = match dk {
                OpKind::IntCmp(c) | OpKind::BoolCmp(c) => c,
                _ => return,
            };
            if !ctx.allow() {
                return;
            }
            let args = f.op(def).operands.clone();
            let d = f.op_mut(op);
            d.kind = with_cmp(&dk, negate(c));
            d.operands = args;
            ctx.stats.simplified += 1;
        }
        _ => {}
    }
}
