//! Constant folding and propagation.
//!
//! - **Scalars**: an op whose operands are all constants and that cannot raise on them is
//!   replaced by a `const`, computed by pyjit-value's scalar semantics — the very functions the
//!   interpreter and native code's host functions call (int, float and bool operators, casts,
//!   `math.*`, `str()`/`format()`), so a folded value is bit for bit the one run time computes.
//!   An op that would raise on its constant operands (`1 // 0`, `math.sqrt(-1)`) is left for run
//!   time, so the error still happens there.
//! - **Forwarding**: `select` on a constant condition, `tuple.get` of `tuple.new`,
//!   `opt.unwrap(opt.wrap x)`, `opt.is_none` of `opt.none`/`opt.wrap`, `list.len`/`list.get`
//!   (constant in-range index) of a `list.new` that is never written nor escapes.
//! - **Shapes and dtypes from the specializer**: `size.int` with a known dim, `dim` with a known
//!   rank, `numel` with all dims known become constants.
//! - **Small constant tensors via the runtime**: in a function without memory writes (no
//!   in-place op, list write or call), tensor ops whose operands are all known (constants,
//!   constant lists, known tensors of at most `fold_max_numel` elements) run on the runtime at
//!   compile time; scalar results become constants, tensor results become known for later ops
//!   (the IR has no tensor constants, so those ops stay).
//! - **`if` on a constant condition**: the taken region is spliced in place of the `if` and the
//!   dead branch disappears (unless the taken region ends in `raise`).
//! - **Loops with constant trip counts**: a loop that runs zero times (trip ≤ 0 or a constant
//!   false condition) is replaced by its initial values; a carried value that the body yields
//!   unchanged (or as the same constant as its initial value) is replaced by its initial value.

use super::PassCtx;
use super::util::{
    self, const_bool, const_int, const_of, insert_const_before, splice_region_before,
};
use pyjit_ir::{Const, Function, Op, OpKind, Uses, Value};
use pyjit_runtime::Value as Rt;
use pyjit_runtime::schema::ArgType;
use pyjit_value::Value as PyValue;
use pyjit_value::ops;
use std::collections::HashMap;

function_pass!(
    ConstFold,
    "constfold",
    "constant folding and propagation (scalars, shapes, small tensors, if, loops)",
    run_function
);

/// A compile-time value: a constant, an immutable list/tuple of known values, or a tensor.
#[derive(Clone)]
enum Known {
    C(Const),
    Seq(Vec<Known>),
    Tensor(pyjit_runtime::Tensor),
}

pub fn run_function(f: &mut Function, ctx: &mut PassCtx) {
    let immutable = !util::function_writes_memory(f);
    let mut tensors: HashMap<Value, Known> = HashMap::new();
    for _ in 0..16 {
        let mut changed = false;
        let mut attached = util::AttachCheck::new(f);
        // Built once per round and kept exact by every rewrite below (all of them go through
        // it), so finding users and replacing uses cost the uses, not the function.
        let mut uses = Uses::build(f);
        for op in f.all_ops() {
            if !attached.check(f, op) {
                continue;
            }
            changed |= fold_op(f, &mut uses, op, ctx, immutable, &mut tensors);
        }
        debug_assert_eq!(uses.check(f), Ok(()));
        if !changed {
            break;
        }
    }
}

fn replace_with_const(
    f: &mut Function,
    uses: &mut Uses,
    op: Op,
    c: Const,
    ctx: &mut PassCtx,
) -> bool {
    let done = util::replace_with_const(f, uses, op, c, ctx);
    ctx.stats.folded += done as u64;
    done
}

fn forward(f: &mut Function, uses: &mut Uses, op: Op, to: Value, ctx: &mut PassCtx) -> bool {
    let done = util::forward_result(f, uses, op, to, ctx);
    ctx.stats.folded += done as u64;
    done
}

fn fold_op(
    f: &mut Function,
    uses: &mut Uses,
    op: Op,
    ctx: &mut PassCtx,
    immutable: bool,
    tensors: &mut HashMap<Value, Known>,
) -> bool {
    let data = f.op(op).clone();
    let ops = &data.operands;
    match &data.kind {
        OpKind::Const(_) => false,
        OpKind::If => fold_if(f, uses, op, ctx),
        OpKind::Loop => fold_loop(f, uses, op, ctx),
        OpKind::Select => match const_bool(f, ops[0]) {
            Some(c) => forward(f, uses, op, if c { ops[1] } else { ops[2] }, ctx),
            None if ops[1] == ops[2] => forward(f, uses, op, ops[1], ctx),
            None => false,
        },
        OpKind::TupleGet(i) => {
            let src = f.defining_op(ops[0]);
            match src.map(|s| f.op(s)) {
                Some(s) if s.kind == OpKind::TupleNew => match s.operands.get(*i as usize) {
                    Some(&v) => forward(f, uses, op, v, ctx),
                    None => false,
                },
                _ => false,
            }
        }
        OpKind::OptUnwrap => match f.defining_op(ops[0]).map(|s| f.op(s)) {
            Some(s) if s.kind == OpKind::OptWrap => {
                let v = s.operands[0];
                forward(f, uses, op, v, ctx)
            }
            _ => false,
        },
        OpKind::OptIsNone => match f.defining_op(ops[0]).map(|s| f.op(s).kind.clone()) {
            Some(OpKind::OptNone) => replace_with_const(f, uses, op, Const::Bool(true), ctx),
            Some(OpKind::OptWrap) => replace_with_const(f, uses, op, Const::Bool(false), ctx),
            _ => false,
        },
        OpKind::ListLen | OpKind::ListGet => fold_list_read(f, uses, op, ctx),
        OpKind::Tensor(id) => fold_tensor(f, uses, op, *id, ctx, immutable, tensors),
        kind => {
            let consts: Option<Vec<Const>> = ops.iter().map(|&v| const_of(f, v).cloned()).collect();
            let Some(consts) = consts else {
                return false;
            };
            match eval_scalar(kind, &consts) {
                Some(c) => replace_with_const(f, uses, op, c, ctx),
                None => false,
            }
        }
    }
}

/// Python's semantics of a scalar op on constants, computed by pyjit-value (the functions the
/// interpreter and native code run); `None` when it would raise or is not a pure scalar op.
pub fn eval_scalar(kind: &OpKind, c: &[Const]) -> Option<Const> {
    let pure = kind.is_scalar_arith()
        || matches!(
            kind,
            OpKind::Math(_)
                | OpKind::Elem(..)
                | OpKind::StrOf(_)
                | OpKind::StrNumPy
                | OpKind::StrConcat
        );
    if !pure {
        return None;
    }
    let args: Vec<PyValue> = c.iter().map(ops::const_value).collect();
    let mut sink = std::io::sink();
    let mut ectx = ops::EvalCtx { out: &mut sink };
    match ops::eval(kind, &args, &mut ectx)? {
        Ok(vals) => match vals.as_slice() {
            [v] => ops::value_const(v),
            _ => None,
        },
        Err(_) => None,
    }
}

/// `if` on a constant: splice the taken region in place of the `if`.
fn fold_if(f: &mut Function, uses: &mut Uses, op: Op, ctx: &mut PassCtx) -> bool {
    let data = f.op(op).clone();
    let Some(c) = const_bool(f, data.operands[0]) else {
        return false;
    };
    let taken = data.regions[if c { 0 } else { 1 }];
    let Some(term) = f.terminator(taken) else {
        return false;
    };
    if f.op(term).kind != OpKind::Yield {
        return false;
    }
    if !ctx.allow() {
        return false;
    }
    let dead = data.regions[if c { 1 } else { 0 }];
    let removed = util::WalkExt::region_size(f, dead) as u64 + 2;
    // Splicing moves attached ops: their uses stay as they are.
    let vals = splice_region_before(f, taken, op);
    for (&r, &y) in data.results.iter().zip(&vals) {
        uses.replace_uses(f, r, y);
    }
    uses.remove_op(f, op);
    ctx.stats.folded += 1;
    ctx.stats.removed += removed;
    true
}

fn fold_loop(f: &mut Function, uses: &mut Uses, op: Op, ctx: &mut PassCtx) -> bool {
    let data = f.op(op).clone();
    let inits = data.operands[2..].to_vec();
    let zero_trip = const_int(f, data.operands[0]).is_some_and(|n| n <= 0)
        || const_bool(f, data.operands[1]) == Some(false);
    if zero_trip {
        if !ctx.allow() {
            return false;
        }
        let removed = util::WalkExt::op_size(f, op) as u64;
        for (&r, &i) in data.results.iter().zip(&inits) {
            uses.replace_uses(f, r, i);
        }
        uses.remove_op(f, op);
        ctx.stats.folded += 1;
        ctx.stats.removed += removed;
        return true;
    }
    // Carried values the body passes through unchanged.
    let body = data.regions[0];
    let Some(term) = f.terminator(body) else {
        return false;
    };
    if f.op(term).kind != OpKind::Yield {
        return false;
    }
    if f.op(op).parent.is_none() {
        return false;
    }
    let params = f.region_params(body).to_vec();
    let mut changed = false;
    for (k, &init) in inits.iter().enumerate() {
        let param = params[k + 1];
        let y = f.op(term).operands[k + 1];
        let invariant = y == param
            || (y == init)
            || matches!((const_of(f, y), const_of(f, init)), (Some(a), Some(b)) if a == b
                && f.value_type(y) == f.value_type(init));
        if !invariant {
            continue;
        }
        let r = data.results[k];
        let in_yield = f.op(term).operands.iter().filter(|&&x| x == param).count();
        let param_used_elsewhere =
            uses.users(param).iter().any(|&(u, _)| u != term) || in_yield > usize::from(y == param);
        if !param_used_elsewhere && uses.is_unused(r) {
            continue; // nothing to propagate; DCE drops the slot
        }
        if !ctx.allow() {
            continue;
        }
        uses.replace_uses(f, param, init);
        uses.replace_uses(f, r, init);
        ctx.stats.folded += 1;
        changed = true;
    }
    changed
}

/// Whether list `l` (a `list.new`) is only read: every user is a `list.len`/`list.get`, a tensor
/// op that reads it, or a print/str.
fn list_is_read_only(f: &Function, uses: &Uses, l: Value) -> bool {
    uses.users(l).iter().all(|&(u, _)| match &f.op(u).kind {
        OpKind::ListLen | OpKind::ListGet | OpKind::Print | OpKind::StrOf(_) | OpKind::StrNumPy => {
            true
        }
        OpKind::Tensor(id) => !pyjit_ir::schema::is_inplace(*id),
        _ => false,
    })
}

fn fold_list_read(f: &mut Function, uses: &mut Uses, op: Op, ctx: &mut PassCtx) -> bool {
    let data = f.op(op).clone();
    let l = data.operands[0];
    let Some(src) = f.defining_op(l) else {
        return false;
    };
    if f.op(src).kind != OpKind::ListNew || !list_is_read_only(f, uses, l) {
        return false;
    }
    let elems = f.op(src).operands.clone();
    match data.kind {
        OpKind::ListLen => replace_with_const(f, uses, op, Const::Int(elems.len() as i64), ctx),
        _ => {
            let Some(i) = const_int(f, data.operands[1]) else {
                return false;
            };
            let n = elems.len() as i64;
            let j = if i < 0 { i + n } else { i };
            if !(0..n).contains(&j) {
                return false;
            }
            forward(f, uses, op, elems[j as usize], ctx)
        }
    }
}

fn known(
    f: &Function,
    v: Value,
    tensors: &HashMap<Value, Known>,
    immutable: bool,
) -> Option<Known> {
    if let Some(k) = tensors.get(&v) {
        return Some(k.clone());
    }
    if let Some(c) = const_of(f, v) {
        return Some(Known::C(c.clone()));
    }
    // Lists and tuples are only values (not objects) when nothing in the function writes.
    let d = f.defining_op(v)?;
    match f.op(d).kind {
        OpKind::ListNew if immutable => {}
        OpKind::TupleNew => {}
        _ => return None,
    }
    let items: Option<Vec<Known>> = f
        .op(d)
        .operands
        .iter()
        .map(|&x| known(f, x, tensors, immutable))
        .collect();
    Some(Known::Seq(items?))
}

fn generic_rt(k: &Known) -> Rt {
    match k {
        Known::C(c) => c.to_runtime(),
        Known::Seq(items) => Rt::List(items.iter().map(generic_rt).collect()),
        Known::Tensor(t) => Rt::Tensor(t.clone()),
    }
}

/// The interpreter's conversion of an argument for a schema parameter (`to_runtime`).
fn to_rt(k: &Known, ty: &ArgType) -> Option<Rt> {
    Some(match (ty, k) {
        (ArgType::Optional(_), Known::C(Const::None)) => Rt::None,
        (ArgType::Optional(inner), k) => return to_rt(k, inner),
        (ArgType::IntList(_), Known::Seq(items)) => {
            let ints: Option<Vec<i64>> = items
                .iter()
                .map(|x| match x {
                    Known::C(Const::Int(i)) => Some(*i),
                    _ => None,
                })
                .collect();
            match ints {
                Some(v) => Rt::IntList(v),
                None => generic_rt(k),
            }
        }
        (ArgType::FloatList, Known::Seq(items)) => {
            let fl: Option<Vec<f64>> = items
                .iter()
                .map(|x| match x {
                    Known::C(Const::Float(v)) => Some(*v),
                    Known::C(Const::Int(i)) => Some(*i as f64),
                    _ => None,
                })
                .collect();
            match fl {
                Some(v) => Rt::FloatList(v),
                None => generic_rt(k),
            }
        }
        (ArgType::TensorList, Known::Seq(items)) => Rt::TensorList(
            items
                .iter()
                .map(|x| match x {
                    Known::Tensor(t) => Some(t.clone()),
                    _ => None,
                })
                .collect::<Option<Vec<_>>>()?,
        ),
        // Subscripts are not folded (no known `Index` values).
        (ArgType::Indices, _) => return None,
        _ => generic_rt(k),
    })
}

fn fold_tensor(
    f: &mut Function,
    uses: &mut Uses,
    op: Op,
    id: pyjit_ir::OpId,
    ctx: &mut PassCtx,
    immutable: bool,
    tensors: &mut HashMap<Value, Known>,
) -> bool {
    let data = f.op(op).clone();
    let name = pyjit_ir::schema::op_name(id);
    // Facts the specializer put in the types.
    if let Some(tt) = data
        .operands
        .first()
        .and_then(|&x| f.value_type(x).as_tensor().cloned())
    {
        let c = match name.as_str() {
            "dim" => tt.rank.map(|r| Const::Int(r as i64)),
            "numel" => tt.dims.as_ref().and_then(|d| {
                d.iter()
                    .try_fold(1i64, |acc, x| x.and_then(|x| acc.checked_mul(x as i64)))
                    .map(Const::Int)
            }),
            "size.int" => match (&tt.dims, const_int(f, data.operands[1])) {
                (Some(dims), Some(d)) => {
                    let n = dims.len() as i64;
                    let j = if d < 0 { d + n } else { d };
                    if (0..n).contains(&j) {
                        dims[j as usize].map(|x| Const::Int(x as i64))
                    } else {
                        None
                    }
                }
                _ => None,
            },
            _ => None,
        };
        if let Some(c) = c {
            return replace_with_const(f, uses, op, c, ctx);
        }
    }
    if !immutable || pyjit_ir::schema::is_inplace(id) || tensors.contains_key(&data.results[0]) {
        return false;
    }
    let schema = pyjit_ir::schema::schema(id);
    let mut args = Vec::with_capacity(data.operands.len());
    for (i, &v) in data.operands.iter().enumerate() {
        let Some(k) = known(f, v, tensors, immutable) else {
            return false;
        };
        let rt = match schema.params.get(i) {
            Some(p) => to_rt(&k, &p.ty),
            None => Some(generic_rt(&k)),
        };
        let Some(rt) = rt else {
            return false;
        };
        args.push(rt);
    }
    // Evaluation can be costly for big inputs: only small tensors go in.
    let max = ctx.options.fold_max_numel;
    if args.iter().any(|a| match a {
        Rt::Tensor(t) => t.numel() > max,
        Rt::TensorList(ts) => ts.iter().any(|t| t.numel() > max),
        _ => false,
    }) {
        return false;
    }
    let Ok(out) = pyjit_runtime::dispatch::call(id, &args) else {
        return false;
    };
    if out.len() != data.results.len() {
        return false;
    }
    let mut consts = Vec::new();
    for (&r, v) in data.results.iter().zip(out) {
        match v {
            Rt::Int(i) => consts.push((r, Const::Int(i))),
            Rt::Float(x) => consts.push((r, Const::Float(x))),
            Rt::Bool(b) => consts.push((r, Const::Bool(b))),
            Rt::Tensor(t) if t.numel() <= max && f.value_type(r).is_tensor() => {
                tensors.insert(r, Known::Tensor(t));
            }
            _ => return false,
        }
    }
    if consts.is_empty() {
        return false;
    }
    if consts.iter().any(|(r, c)| c.ty() != *f.value_type(*r)) || !ctx.allow() {
        return false;
    }
    for (r, c) in consts {
        let v = insert_const_before(f, op, c);
        uses.replace_uses(f, r, v);
    }
    if f.results(op).len() == 1 {
        uses.remove_op(f, op);
        ctx.stats.removed += 1;
    }
    ctx.stats.folded += 1;
    true
}
