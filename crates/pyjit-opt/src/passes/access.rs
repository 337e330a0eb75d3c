//! Element access: scalar subscripts of specialized tensors become `tensor.load` /
//! `tensor.store`, which native code compiles to inline loads and stores through the tensor's
//! raw view (data pointer, sizes, strides) instead of runtime calls.
//!
//! Rewrites, where `%t` has a known dtype and rank `r`, and `%l = list.new(index.int(%i0), …,
//! index.int(%ir-1))` is a subscript of exactly `r` ints:
//! - `%u = tensor.index_put_.Scalar(%t, %l, %v)` → `tensor.store(%t, %i0, …, %v)`; uses of `%u`
//!   (the tensor itself) become `%t` (only when both have the same type, or `%u` is unused);
//! - `%e = tensor.index(%t, %l)` … `%s = tensor.Float.Tensor(%e)` (or `Int.Tensor`, `Bool.Tensor`,
//!   `item`) whose result type is the element's Python type → `%s = tensor.load(%t, %i0, …)`,
//!   placed where `tensor.index` was (so an out-of-range index raises at the same point), provided
//!   nothing between the two ops writes memory (the element read is the same). `%e` stays for
//!   its other users and is deleted when there are none (the load raises what it would have).
//!   In a NumPy-style module the subscript is wrapped, `%c = tensor.np_element(%e)` (a copy
//!   when 0-d), and `Float.Tensor(%c)` is rewritten the same way: the copy is taken at
//!   `np_element`, so only the ops between `tensor.index` and `np_element` must not write
//!   memory; `%c` and `%e` go when nothing else uses them.
//!
//! - `x.shape[k]` (`list.get(tensor.size(%x), k)` with a constant `k` within the known rank, the
//!   size list only read) → `tensor.size.int(%x, k)`.
//!
//! It never fires on subscripts with slices, `None`, `...`, tensors or fewer ints than dims
//! (those are views, not elements), on tensors of unknown dtype or rank, on non-scalar values
//! stored (`x[i] = t`), or when the subscript list is used by anything but subscripts (it could be
//! mutated). Both ops keep the runtime's semantics exactly: they mean "the same subscript, then
//! `index_put_`/`item`" (`pyjit_value::ops` evaluates them with those runtime functions).

use super::PassCtx;
use super::util::region_writes_memory;
use pyjit_ir::{Function, IndexKind, Op, OpKind, Type, Uses, Value};

function_pass!(
    TensorAccess,
    "tensor-access",
    "scalar subscripts of specialized tensors to tensor.load/tensor.store",
    run_function
);

pub fn run_function(f: &mut Function, ctx: &mut PassCtx) {
    // One index for the whole pass, kept exact by every rewrite (they all go through it).
    let mut uses = Uses::build(f);
    for op in f.all_ops() {
        let OpKind::Tensor(id) = f.op(op).kind else {
            continue;
        };
        let changed = match pyjit_ir::schema::op_name(id).as_str() {
            "index_put_.Scalar" => store(f, &mut uses, op, ctx),
            "Float.Tensor" | "Int.Tensor" | "Bool.Tensor" | "item" => load(f, &mut uses, op, ctx),
            _ => false,
        };
        if changed {
            ctx.stats.simplified += 1;
        }
    }
    for op in f.all_ops() {
        let changed = f.op(op).kind == OpKind::ListGet && shape_get(f, &mut uses, op, ctx);
        if changed {
            ctx.stats.simplified += 1;
        }
    }
    debug_assert_eq!(uses.check(f), Ok(()));
    f.flush_detached();
}

/// `x.shape[k]` (`list.get(tensor.size(%x), k)`, constant `k` within the known rank, the list
/// only read) → `tensor.size.int(%x, k)`, which native code reads from the tensor's view.
fn shape_get(f: &mut Function, uses: &mut Uses, op: Op, ctx: &mut PassCtx) -> bool {
    let d = f.op(op).clone();
    let [l, k] = d.operands[..] else {
        return false;
    };
    let Some(def) = f.defining_op(l) else {
        return false;
    };
    let ld = f.op(def).clone();
    if !matches!(ld.kind, OpKind::Tensor(id) if pyjit_ir::schema::op_name(id) == "size") {
        return false;
    }
    let x = ld.operands[0];
    let (Some(rank), Some(kv)) = (
        f.value_type(x).as_tensor().and_then(|t| t.rank),
        super::util::const_int(f, k),
    ) else {
        return false;
    };
    let r = i64::from(rank);
    let read_only = uses
        .users(l)
        .iter()
        .all(|&(u, _)| matches!(f.op(u).kind, OpKind::ListGet | OpKind::ListLen));
    if !(-r..r).contains(&kv) || !read_only || !ctx.allow() {
        return false;
    }
    let Some(size_int) = pyjit_ir::schema::lookup("size.int") else {
        return false;
    };
    let new = f.create_op(OpKind::Tensor(size_int), &[x, k], &[Type::Int], &[], d.span);
    uses.insert_op_before(f, op, new);
    let nv = f.result(new);
    uses.replace_uses(f, d.results[0], nv);
    uses.remove_op(f, op);
    true
}

/// The int indices of subscript `l` when it addresses one element of tensor `t` (known dtype and
/// rank, one `index.int` per dim) and the list is only ever read by subscripts.
fn element_indices(f: &Function, uses: &Uses, t: Value, l: Value) -> Option<Vec<Value>> {
    let idx = int_subscript(f, t, l)?;
    let read_only = uses
        .users(l)
        .iter()
        .all(|&(u, i)| reads_as_subscript(f, u, i as usize));
    read_only.then_some(idx)
}

/// The int indices of subscript list `l` when it is a `list.new` of one `index.int` per dim of
/// `t` (known dtype and rank). Whether the list is only read by subscripts (so it cannot change)
/// is the caller's to check, with [`reads_as_subscript`].
pub(crate) fn int_subscript(f: &Function, t: Value, l: Value) -> Option<Vec<Value>> {
    let tt = f.value_type(t).as_tensor()?;
    let rank = tt.rank? as usize;
    tt.dtype?;
    let def = f.defining_op(l)?;
    let d = f.op(def);
    if d.kind != OpKind::ListNew || d.operands.len() != rank {
        return None;
    }
    let mut idx = Vec::with_capacity(rank);
    for &c in &d.operands {
        let cd = f.op(f.defining_op(c)?);
        if cd.kind != OpKind::Index(IndexKind::Int) {
            return None;
        }
        idx.push(cd.operands[0]);
    }
    Some(idx)
}

/// Whether operand `i` of `op` is read as the index list of a subscript (`index`, `index_put_`).
pub(crate) fn reads_as_subscript(f: &Function, op: Op, i: usize) -> bool {
    i == 1
        && matches!(f.op(op).kind, OpKind::Tensor(id)
            if matches!(pyjit_ir::schema::op_name(id).as_str(),
                "index" | "index_put_" | "index_put_.Scalar"))
}

fn store(f: &mut Function, uses: &mut Uses, op: Op, ctx: &mut PassCtx) -> bool {
    let d = f.op(op).clone();
    let [t, l, v] = d.operands[..] else {
        return false;
    };
    if !f.value_type(v).is_scalar() {
        return false;
    }
    let Some(idx) = element_indices(f, uses, t, l) else {
        return false;
    };
    let u = d.results.first().copied();
    let used = u.is_some_and(|u| !uses.is_unused(u));
    if used && u.map(|u| f.value_type(u)) != Some(f.value_type(t)) {
        return false;
    }
    if !ctx.allow() {
        return false;
    }
    let mut operands = vec![t];
    operands.extend(idx);
    operands.push(v);
    let new = f.create_op(OpKind::TensorStore, &operands, &[], &[], d.span);
    uses.insert_op_before(f, op, new);
    if let Some(u) = u {
        uses.replace_uses(f, u, t);
    }
    uses.remove_op(f, op);
    true
}

fn load(f: &mut Function, uses: &mut Uses, op: Op, ctx: &mut PassCtx) -> bool {
    let d = f.op(op).clone();
    let ([e], [s]) = (&d.operands[..], &d.results[..]) else {
        return false;
    };
    let Some(mut ix) = f.defining_op(*e) else {
        return false;
    };
    // NumPy's element subscript `np_element(tensor.index(…))` copies the element where
    // `np_element` is: the element is read there, whatever writes come after.
    let mut wrap = None;
    if matches!(f.op(ix).kind, OpKind::Tensor(k) if pyjit_ir::schema::op_name(k) == "np_element") {
        let Some(inner) = f.defining_op(f.op(ix).operands[0]) else {
            return false;
        };
        wrap = Some(ix);
        ix = inner;
    }
    let id = f.op(ix).clone();
    if !matches!(id.kind, OpKind::Tensor(k) if pyjit_ir::schema::op_name(k) == "index") {
        return false;
    }
    let [t, l] = id.operands[..] else {
        return false;
    };
    let Some(idx) = element_indices(f, uses, t, l) else {
        return false;
    };
    let Some(dtype) = f.value_type(t).as_tensor().and_then(|tt| tt.dtype) else {
        return false;
    };
    let ty = Type::element_of(dtype);
    if *f.value_type(*s) != ty {
        return false;
    }
    // Both ops in one region, nothing between them writing memory (up to the copy, for a NumPy
    // element subscript).
    let end = wrap.unwrap_or(op);
    let (Some(r), Some(r2)) = (f.op(ix).parent, f.op(end).parent) else {
        return false;
    };
    let (Some(a), Some(b)) = (f.position(ix), f.position(end)) else {
        return false;
    };
    if r != r2 || a >= b {
        return false;
    }
    let between = f.region_ops(r)[a + 1..b].to_vec();
    let writes = between.iter().any(|&o| {
        f.op(o).kind.writes_memory()
            || f.op(o)
                .regions
                .clone()
                .into_iter()
                .any(|rr| region_writes_memory(f, rr))
    });
    if writes || !ctx.allow() {
        return false;
    }
    let mut operands = vec![t];
    operands.extend(idx);
    let new = f.create_op(OpKind::TensorLoad, &operands, &[ty], &[], id.span);
    uses.insert_op_before(f, ix, new);
    let nv = f.result(new);
    uses.replace_uses(f, *s, nv);
    uses.remove_op(f, op);
    // The load raises whatever the subscript would have, at its place: an otherwise unused
    // subscript goes too (DCE keeps ops that may raise; `np_element` cannot raise).
    if let Some(w) = wrap
        && uses.is_unused(*e)
    {
        uses.remove_op(f, w);
    }
    if uses.is_unused(id.results[0]) {
        uses.remove_op(f, ix);
    }
    true
}
